// @ts-check
// The browser table's start: the modules wired together around the pure reducer (state.js).
//
// page.js     the state, the connection, the hand, the message loop and the redraw
// screens.js  the lobby, the waiting room and the whole screen's drawing; table.js the
//             table; overlays.js the sheets over it; replay_view.js the replay viewer
//             (review_view.js the review in it: the line of chances, turning points)
// input.js    every input turned into requests; chat.js quick chat; lobby.js links, lists
// text.js     words put together from the state
//
// What a message does beyond the state (a toast, a line read out, a list to fetch) is
// `react`, a listener of the message loop.

import { sayAloud } from "./chat.js";
import { spokenPlay } from "./i18n.js";
import { autoPass, labelKeys, restoreForms, wire } from "./input.js";
import { actOnLink, getHistory, listRooms, readLink } from "./lobby.js";
import { wireLadder } from "./ladder.js";
import { applyMotion } from "./motion.js";
import { announce, clearToast, conn, hand, listen, renderNow, setRenderer, state, toast, ui } from "./page.js";
import { applyLanguage, render } from "./screens.js";
import { readKeyLink, welcomed, wireKey } from "./player_key.js";
import { newKeyCame, wireProfile } from "./profile.js";
import { puzzleHeard, puzzleRefused, wirePuzzles } from "./puzzle_view.js";
import { reviewHeard, reviewRefused, wireReview } from "./review_view.js";
import { played } from "./sound.js";
import { cardRank } from "./rules.js";
import { mySeat, myTurn } from "./state.js";
import { errorText, rematchText, seatName } from "./text.js";

/** @typedef {import("./page.js").Msg} Msg */
/** @typedef {import("./page.js").State} State */

/** What a message does beyond the state: messages to show, links to act on. */
function react(/** @type {State} */ before, /** @type {Msg} */ msg) {
  if (msg.type === "error") {
    if (msg.request_id === ui.busy) ui.busy = null;
    const chat = msg.request_id !== null && msg.request_id === ui.chatRequest;
    // (a review's refusal is said in the replay viewer, a puzzle's on its screens)
    if (!reviewRefused(msg) && !puzzleRefused(msg)) {
      toast(chat && msg.code === "rate_limited" ? ui.t("chat_limited") : errorText(msg.code, msg.message));
    }
  } else if (!msg.type.startsWith("_") && msg.type !== "pong" && msg.type !== "room_list") {
    ui.busy = null;
  }
  if (msg.type === "welcome") {
    if (ui.usableAt === null) ui.usableAt = performance.now();
    welcomed(/** @type {any} */ (msg));
    if (!msg.room) actOnLink();
    listRooms();
    getHistory();
  }
  if (msg.type === "player_key") newKeyCame();
  if (msg.type === "chat_said") sayAloud(/** @type {any} */ (msg));
  if (msg.type === "rematch_asked" && state.rematch) announce(rematchText());
  if (msg.type === "replay") {
    ui.replayDeal = 0;
    ui.replayStep = 0;
  }
  if (["turn", "snapshot", "seat_control", "played", "passed"].includes(msg.type)) autoPass();
  if (msg.type === "_closed" || msg.type === "_down") ui.busy = null;
  // a new deal: the last deal's last play is no longer what is said on the table
  if (msg.type === "deal_started") {
    const table = state.room?.table;
    announce(table ? ui.t("deal_of", { n: table.deal_no, total: table.deals_total }) : "");
  }
  const turn = myTurn(state);
  const was = myTurn(before);
  if (turn && (!was || was.version !== turn.version || was.action !== turn.action)) {
    // my turn began (its own message, or a snapshot's)
    announce(ui.t(turn.action === "bid" ? "your_turn_bid" : "your_turn_lead").split(":")[0]);
    // the focus nowhere (on a screen or button gone, a sheet closed): it goes to my hand
    renderNow();
    const at = document.activeElement;
    const lost = at === null || at === document.body || at.closest("[hidden]") !== null;
    if (lost && !document.querySelector(".overlay:not([hidden])")) hand.focusCard();
  }
  if (msg.type === "played" && msg.seat !== mySeat(state)) {
    const play = { kind: msg.kind, cards: msg.cards.map(cardRank).sort((/** @type {number} */ a, /** @type {number} */ b) => a - b) };
    announce(ui.t("ev_played", { name: seatName(msg.seat), play: spokenPlay(ui.t, ui.lang, play) }));
  }
  if (msg.type === "passed" && msg.seat !== mySeat(state)) announce(ui.t("ev_passed", { name: seatName(msg.seat) }));
  if (state.room?.code !== before.room?.code) clearToast(); // a toast belongs to its screen
  timeouts(msg);
  if ((msg.type === "left" || msg.type === "room_closed" || msg.type === "_lobby") && !state.room) {
    listRooms();
    getHistory();
  }
  if (state.notice && state.notice !== before.notice) {
    toast(ui.t(state.notice));
  }
  backAfterRestart(before, msg);
}

/** Back at the table after the server restarted (its clock given back, held while we
 * were away: the snapshot says so): said, with the time my clock has.
 * @param {State} before @param {Msg} msg */
function backAfterRestart(before, msg) {
  const table = msg.type === "snapshot" ? msg.room.table : null;
  if (!table?.restarted || before.live || before.room === null) return;
  const turn = table.turn ?? null;
  if (turn !== null && turn.seat === mySeat(state) && turn.deadline !== null) {
    toast(ui.t("back_restarted_mine", { s: Math.max(0, Math.round(turn.deadline - turn.server_time)) }));
  } else toast(ui.t("back_restarted"));
}

/** My clock ran out (the server acted for me): warn that one more in a row hands my seat
 * to a bot; the warning stays until I act myself or a bot takes over. @param {Msg} msg */
function timeouts(msg) {
  const me = mySeat(state);
  if (me === null) {
    ui.timedOut = false;
    return;
  }
  if (["bid", "played", "passed"].includes(msg.type) && msg.seat === me) ui.timedOut = !!msg.timeout;
  if (msg.type === "seat_control" && msg.seat === me) ui.timedOut = false;
}

listen(react);
listen(reviewHeard);
listen(puzzleHeard);
applyMotion();
setRenderer(render);
readLink();
readKeyLink();
wire();
wireKey();
wireProfile();
wireLadder();
wireReview();
wirePuzzles();
restoreForms();
applyLanguage();
labelKeys();
render();
conn.start();
// for tests and the curious: the page's state, read only
Object.defineProperty(window, "ddz", {
  value: Object.freeze({ state: () => state, usableAt: () => ui.usableAt, sounds: () => [...played] }),
});
