// @ts-check
// The Puzzles of the lobby and the puzzle sheet (issue 33): the day's puzzle or one near my
// puzzle rating, asked of the server; the open position (every hand shown), the side I
// play, my move picked from the hand on turn as at the table (tap, swipe, keys: hand.js),
// the solver's replies, then solved or failed with the winning line and, for a first try,
// the ratings' change. A first try is rated: the sheet says, until it is over, that leaving
// it counts as failed (the server counts it so: server/lobby/puzzles.py). The attempt itself is puzzle.js's (pure).

import { showDialog } from "./dialogs.js";
import { $, button, make } from "./dom.js";
import { Hand, showCards, showPlay } from "./hand.js";
import { conn, renderNow, scheduleRender, ui } from "./page.js";
import { afterReply, leavingCounts, moveRequest, mySeatOnTurn, mySeats, pickVerdict, startAttempt } from "./puzzle.js";
import { formatCards } from "./rules.js";
import { errorText, playName, signed } from "./text.js";

/** @typedef {{[field: string]: any}} Msg */
/** @typedef {import("./puzzle.js").Attempt} Attempt */

/** @type {Attempt | null} the puzzle on screen */
let attempt = null;
/** the last reply's moves, said under the seats that made them */
/** @type {{seat: number, cards: number[] | null}[]} */
let lastMoves = [];
/** @type {Set<number>} request ids of mine whose refusal the puzzle screens say */
const asked = new Set();
/** a move sent and not answered yet */
let moving = false;
/** a refusal of my move, said in place of the line above Play until the next pick */
let notice = "";
/** @type {HTMLElement | null} the lobby button the sheet was opened by */
let opener = null;

const hand = new Hand($("pz-hand"), () => {
  notice = "";
  renderNow();
});

/** Ask for a puzzle: the day's, one by id (again), or the next near my rating. */
function ask(/** @type {{daily?: boolean, puzzle_id?: string}} */ which) {
  const id = conn.send({ type: "get_puzzle", ...which });
  if (id !== null) asked.add(id);
  $("puzzle-lobby-error").textContent = "";
  scheduleRender();
}

/** Whether an error answers a puzzle request (said on the puzzle screens, not a toast). */
export function puzzleRefused(/** @type {Msg} */ msg) {
  return msg.type === "error" && asked.has(msg.request_id);
}

/** The message loop's listener: a puzzle came, a reply, or a refusal. */
export function puzzleHeard(/** @type {any} */ _before, /** @type {Msg} */ msg) {
  if (msg.type === "puzzle" || msg.type === "puzzle_reply") notice = "";
  if (msg.type === "puzzle") {
    attempt = startAttempt(msg);
    lastMoves = [];
    moving = false;
    hand.selected.clear();
  } else if (msg.type === "puzzle_reply" && attempt) {
    const before = attempt.moves.length;
    attempt = afterReply(attempt, msg);
    lastMoves = attempt.moves.slice(before);
    moving = false;
  } else if (puzzleRefused(msg)) {
    moving = false;
    const text = msg.code === "no_puzzle" ? ui.t("puzzle_none") : errorText(msg.code, msg.message);
    if (attempt) notice = text;
    else $("puzzle-lobby-error").textContent = text;
  }
  if (msg.type === "puzzle" || msg.type === "puzzle_reply" || msg.type === "error") {
    if (msg.request_id !== undefined) asked.delete(msg.request_id);
  }
}

/** Play the picked cards (none: pass) with the seat on turn. */
function move(/** @type {number[]} */ picked) {
  if (!attempt || moving || mySeatOnTurn(attempt) === null) return;
  const id = conn.send(moveRequest(attempt, picked));
  if (id === null) return;
  asked.add(id);
  moving = true;
  hand.selected.clear();
  scheduleRender();
}

export function wirePuzzles() {
  $("puzzle-daily").addEventListener("click", (e) => {
    opener = /** @type {HTMLElement} */ (e.currentTarget);
    ask({ daily: true });
  });
  $("puzzle-next").addEventListener("click", (e) => {
    opener = /** @type {HTMLElement} */ (e.currentTarget);
    ask({});
  });
  $("pz-another").addEventListener("click", () => ask({}));
  $("pz-retry").addEventListener("click", () => {
    if (attempt) ask({ puzzle_id: attempt.id });
  });
  $("pz-play").addEventListener("click", () => move([...hand.selected]));
  $("pz-pass").addEventListener("click", () => move([]));
  $("puzzle-close").addEventListener("click", close);
  $("puzzle").addEventListener("keydown", (e) => {
    if (e.key === "Escape") {
      e.preventDefault();
      close();
    } else if (e.key === "Enter" && !button("pz-play").disabled && !button("pz-play").hidden) {
      if (/** @type {HTMLElement} */ (e.target).closest("button")) return; // (its own click)
      e.preventDefault();
      button("pz-play").click();
    }
  });
}

function close() {
  attempt = null;
  lastMoves = [];
  renderNow();
  opener?.focus();
}

/** A seat of a puzzle by its role: the landlord, or which farmer. */
function seatLabel(/** @type {number} */ seat) {
  const t = ui.t;
  const role = seat === 0 ? `♛ ${t("landlord")}` : t(seat === 1 ? "puzzle_farmer_next" : "puzzle_farmer_second");
  return attempt && mySeats(attempt.data).includes(seat) ? t("seats_you", { name: role }) : role;
}

/** The puzzle sheet, from the attempt. */
export function renderPuzzle() {
  const t = ui.t;
  const a = attempt;
  showDialog($("puzzle"), a !== null, $("pz-hand"));
  if (a === null) {
    hand.set([], false, t);
    for (const box of document.querySelectorAll("#pz-seats .pz-cards, #pz-seats .pz-said")) box.replaceChildren();
    $("pz-line").replaceChildren();
    return;
  }
  const data = a.data;
  $("puzzle-h").textContent = data.daily ? t("puzzle_daily") : t("puzzle_title");
  const info = [t("puzzle_rating", { n: data.rating }), t("puzzle_yours", { n: data.your_rating })];
  if (data.own) info.push(t("puzzle_own"));
  if (data.tried) info.push(t("puzzle_tried"));
  $("puzzle-info").textContent = info.join(" · ");
  // a first try: leaving it before the end fails it (said from the start; the dialog's
  // description, so empty when it does not hold)
  const rated = $("pz-rated");
  rated.hidden = !leavingCounts(a);
  rated.textContent = rated.hidden ? "" : t("puzzle_rated");
  $("puzzle-task").textContent = t(data.side === "landlord" ? "puzzle_task_ll" : "puzzle_task_fm", { n: data.min_plays });
  const on = mySeatOnTurn(a);
  for (const row of document.querySelectorAll("#pz-seats .pz-seat")) {
    const el = /** @type {HTMLElement} */ (row);
    const seat = Number(el.dataset.seat);
    el.classList.toggle("on-turn", a.turn === seat && a.result === "going");
    el.classList.toggle("mine", mySeats(data).includes(seat));
    /** @type {HTMLElement} */ (el.querySelector(".who")).textContent =
      `${seatLabel(seat)} · ${t("cards_left", { n: a.hands[seat].length })}`;
    const cards = /** @type {HTMLElement} */ (el.querySelector(".pz-cards"));
    if (seat === on) {
      cards.replaceChildren();
      cards.after($("pz-hand"));
    } else {
      showCards(cards, a.hands[seat], t);
    }
    cards.hidden = seat === on;
    const said = /** @type {HTMLElement} */ (el.querySelector(".pz-said"));
    const mine = [...lastMoves].reverse().find((m) => m.seat === seat);
    const table = a.toBeat && a.toBeat.seat === seat && !mine ? a.toBeat.cards : null;
    said.replaceChildren();
    if (mine && mine.cards === null) said.textContent = t("pass");
    else if (mine?.cards || table) showPlay(said, /** @type {number[]} */ (mine?.cards ?? table), t);
  }
  $("pz-hand").hidden = on === null;
  hand.set(on === null ? [] : a.hands[on], on !== null && !moving, t);
  const verdict = pickVerdict(a, hand.selected);
  const line = $("pz-legality");
  // (as the table's line: "beat {play}" names the play to beat)
  const named = verdict.key === "your_turn_beat" ? verdict.other : verdict.play;
  const words = verdict.key ? t(verdict.key, { play: playName(named), other: playName(verdict.other) }) : "";
  line.textContent = moving ? t("puzzle_thinking") : notice || words;
  line.dataset.level = notice ? "bad" : verdict.level;
  const going = a.result === "going";
  button("pz-play").hidden = button("pz-pass").hidden = !going;
  button("pz-play").disabled = moving || on === null || verdict.level !== "ok";
  button("pz-pass").disabled = moving || on === null || a.toBeat === null;
  button("pz-retry").hidden = button("pz-another").hidden = going;
  // the focus stays in the sheet (for its keys) when the button it was on goes
  const at = document.activeElement;
  if (at === null || at === document.body || at.closest("[hidden]")) {
    const card = /** @type {HTMLElement | null} */ ($("pz-hand").querySelector(".card[tabindex='0']"));
    (going ? card ?? $("puzzle-sheet") : button("pz-another")).focus();
  }
  const result = $("pz-result");
  result.hidden = going;
  if (!going) {
    result.className = `pz-result ${a.result}`;
    const parts = [t(a.result === "solved" ? "puzzle_solved" : "puzzle_failed")];
    if (a.rating) {
      const r = a.rating;
      parts.push(t("puzzle_rating_change", { before: r.before, after: r.after, delta: signed(r.after - r.before) }));
    }
    result.textContent = parts.join(" ");
    line.textContent = notice;
  }
  const winning = $("pz-line");
  winning.hidden = a.result !== "failed" || !a.line.length;
  if (!winning.hidden) {
    winning.setAttribute("aria-label", t("puzzle_line"));
    winning.replaceChildren(
      make("li", "head", t("puzzle_line")),
      ...a.line.map((m) => make("li", "", `${seatLabel(m.seat)}: ${m.ranks === null ? t("pass") : formatCards(m.ranks)}`)),
    );
  }
}
