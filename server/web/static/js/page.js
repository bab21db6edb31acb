// @ts-check
// The page's shared parts: the state (from the pure reducer in state.js), the page's own
// `ui` state, the connection, the hand, and the loop that turns messages into a redraw.
//
// Every server message goes through `reduce` into `state`; then every listener (`listen`)
// sees the state before and the message, for what a message does beyond the state (a
// toast, a sound, a motion); then the screen is drawn from `state` and `ui` in the next
// animation frame by the one renderer (`setRenderer`).

import { Connection } from "./conn.js";
import { $ } from "./dom.js";
import { Hand } from "./hand.js";
import { pickLang, translator } from "./i18n.js";
import { prefs, store } from "./prefs.js";
import { initialState, reduce, smartPickCards } from "./state.js";

/** @typedef {import("./i18n.js").Lang} Lang */
/** @typedef {{type: string, [k: string]: any}} Msg */
/** @typedef {ReturnType<typeof initialState>} State */
/** @typedef {(before: State, msg: Msg) => void} Listener */

/** The page's picture of the server (read only outside this module: `dispatch` moves it). */
export let state = initialState();

export const ui = {
  /** @type {Lang} */
  lang: prefs.lang ?? pickLang(navigator.languages ?? [navigator.language ?? "en"]),
  t: translator("en"),
  hintKey: "",
  hintIndex: -1,
  hintPass: false,
  /** @type {number | null} request id of a game action awaiting its answer */
  busy: null,
  /** @type {{code: string, watch: boolean} | null} a join or watch link to act on */
  pending: null,
  leaveArmed: false,
  /** @type {number | null} ms after the page began loading that it was first usable */
  usableAt: null,
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  toastTimer: undefined,
  /** the replay viewer's deal (index into its deals) and step */
  replayDeal: 0,
  replayStep: 0,
  /** @type {number | null} the request id of the last chat phrase sent */
  chatRequest: null,
  /** @type {string} the turn auto-pass last passed on (no second pass for one turn) */
  autoPassed: "",
  /** my clock ran out once: one more time in a row and a bot plays for me */
  timedOut: false,
  /** a player code from a link, another player's than this browser's: asked first */
  /** @type {string | null} */
  linkKey: null,
  /** a code or link was just taken up: say so once its hello is welcomed */
  movedIn: false,
  /** @type {"profile" | "ladder" | null} the lobby's sheet open over it */
  sheet: null,
  /** @type {string | null} the public tag of the player whose card the ladder shows */
  playerTag: null,
  /** the profile's page of matches (offset), and whether its code and link are shown */
  profileOffset: 0,
  keyShown: false,
  newKeyArmed: false,
};
ui.t = translator(ui.lang);
// a name this browser did not choose is the default one, in the page's language (玩家 123)
if (!prefs.named) prefs.name = ui.t("default_name", { n: /\d+/.exec(prefs.name)?.[0] ?? "100" });

/** @type {Listener[]} */
const listeners = [];

/** Have `fn` see every message after the state took it in, before the redraw. */
export function listen(/** @type {Listener} */ fn) {
  listeners.push(fn);
}

/** Every message, the socket's own included, in the order they came. */
export function dispatch(/** @type {Msg} */ msg) {
  const before = state;
  state = reduce(state, msg, performance.now() / 1000);
  for (const fn of listeners) fn(before, msg);
  scheduleRender();
}

export const conn = new Connection({
  url: `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`,
  name: () => prefs.name,
  storage: store,
  tokenKey: `ddz.token.${location.host}`,
  keyKey: `ddz.player.${location.host}`,
  onMessage: dispatch,
});

export const hand = new Hand($("hand"), () => {
  ui.hintPass = false;
  renderNow(); // a pick shows (and the legality line follows) before the next event
});
// smart pick: a swipe or tap over more than a play picks the play in it (a setting)
hand.refine = (picked, gesture) => (prefs.smartPick ? smartPickCards(state, picked, gesture) : null);

/**
 * Send a request on the live session; false when there is none (the screen says so).
 * @param {Msg} msg
 * @param {boolean} [action] a game action: the buttons wait for its answer
 */
export function send(msg, action = false) {
  const id = conn.send(msg);
  if (id === null) return false;
  if (action) ui.busy = id;
  scheduleRender();
  return true;
}

// --- drawing ----------------------------------------------------------------------------

let render = () => {};
let frame = 0;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let frameTimer;

/** The function that draws the whole screen from `state` and `ui`. */
export function setRenderer(/** @type {() => void} */ fn) {
  render = fn;
}

export function renderNow() {
  if (frame) cancelAnimationFrame(frame);
  clearTimeout(frameTimer);
  frame = 0;
  render();
}

/** Render in the next animation frame, or within 100 ms when no frame comes (a browser
 * may hold animation frames back while it thinks nothing on the page moves). */
export function scheduleRender() {
  if (frame) return;
  frame = requestAnimationFrame(renderNow);
  frameTimer = setTimeout(renderNow, 100);
}

// --- messages on screen -----------------------------------------------------------------

export function toast(/** @type {string} */ text) {
  const el = $("toast");
  el.textContent = text;
  el.hidden = false;
  clearTimeout(ui.toastTimer);
  ui.toastTimer = setTimeout(() => {
    el.hidden = true;
  }, 4000);
}

/** Put a message away (a new screen: the lobby's messages do not follow to the table). */
export function clearToast() {
  clearTimeout(ui.toastTimer);
  $("toast").hidden = true;
}

export function announce(/** @type {string} */ text) {
  $("announce").textContent = text;
}
