// @ts-check
// What Hint cycles through on my turn (the legal plays that beat the table, in hintPlays'
// order, then pass when I may), worked out by a worker as soon as my turn comes, so that
// neither my turn nor the tap on Hint waits for it on the page's thread.

import { listen, state } from "./page.js";
import { hintPlays, cardRank } from "./rules.js";
import { myHand, myTurn, toBeat } from "./state.js";

/** @typedef {{cards: number[], kind: string}} Play */

/** @type {Worker | null} */
let worker = null;
/** The plays asked for, by turn and hand. @type {Map<string, Promise<Play[]>>} */
const asked = new Map();
/** The plays worked out, by turn and hand. @type {Map<string, Play[]>} */
const known = new Map();
/** @type {Map<string, (plays: Play[]) => void>} */
const waiting = new Map();

function start() {
  if (worker === null && typeof Worker !== "undefined") {
    try {
      worker = new Worker(new URL("./hint_worker.js", import.meta.url), { type: "module" });
      worker.addEventListener("message", (e) => {
        waiting.get(e.data.key)?.(e.data.plays);
        waiting.delete(e.data.key);
      });
    } catch {
      worker = null;
    }
  }
  return worker;
}

/** This turn's key: its version and my hand. */
function turnKey() {
  const turn = myTurn(state);
  return turn && turn.action === "play" ? `${turn.version}:${myHand(state).join(",")}` : null;
}

/** The plays for my turn now, worked out once per turn (by the worker when there is one). */
function playsNow(/** @type {string} */ key) {
  let plays = asked.get(key);
  if (plays) return plays;
  const ranks = myHand(state).map(cardRank);
  const other = toBeat(state);
  const w = start();
  plays = w
    ? new Promise((resolve) => {
        waiting.set(key, resolve);
        w.postMessage({ key, ranks, toBeat: other });
      })
    : Promise.resolve(/** @type {Play[]} */ (/** @type {unknown} */ (hintPlays(ranks, other))));
  asked.clear(); // only this turn's are worth keeping
  known.clear();
  asked.set(key, plays);
  void plays.then((p) => asked.get(key) === plays && known.set(key, p));
  return plays;
}

/** The plays with pass after them when I may pass. @param {Play[]} plays */
function withPass(plays) {
  /** @type {(Play | null)[]} */
  const options = [...plays];
  if (myTurn(state)?.may_pass) options.push(null);
  return options;
}

/**
 * Hint's options for my turn: the plays, then null (pass) when I may pass; [] when it is
 * not my play turn. At once when they are known (as they are by the time a person taps
 * Hint), else a promise of them ([] if the turn moved on meanwhile).
 * @returns {(Play | null)[] | Promise<(Play | null)[]>}
 */
export function hintOptionsSoon() {
  const key = turnKey();
  if (key === null) return [];
  const plays = known.get(key);
  if (plays) return withPass(plays);
  return playsNow(key).then((p) => (turnKey() === key ? withPass(p) : []));
}

// my play turn: start on the plays at once, before Hint is pressed
listen((_before, msg) => {
  if (msg.type !== "turn" && msg.type !== "snapshot") return;
  const key = turnKey();
  if (key !== null) void playsNow(key);
});
