// The browser table: wires the socket, the reducer (state.js) and the screens together.
//
// Every server message goes through `reduce` into `state`; the screen is drawn from `state`
// (and the page's own `ui`: the picked cards, the hint cycle, preferences) in the next
// animation frame. Input becomes requests through `send`, checked first so that the page
// never sends what the server would refuse for its shape.

import { Connection, cleanName } from "./conn.js";
import { Hand, cardElement, showCards } from "./hand.js";
import { LANGS, LANG_NAMES, kindName, pickLang, translator } from "./i18n.js";
import { replayFrame, stepCount } from "./replay.js";
import { RANK_TEXT, cardRank } from "./rules.js";
import {
  cardsFor,
  hintOptions,
  initialState,
  legalBids,
  mySeat,
  myTurn,
  nothingBeats,
  reduce,
  secondsLeft,
  seatOrder,
  unseen,
  verdict,
} from "./state.js";

/** The quick-chat phrases (protocol/chat.py), then its emotes with the face each shows. */
const PHRASES = Object.freeze([
  "hello", "good_luck", "well_played", "nice_bomb", "hurry_up", "oops", "sorry", "thanks",
  "good_game", "one_more", "bye",
]);
const EMOTES = Object.freeze({
  smile: "🙂", laugh: "😄", cry: "😢", angry: "😠", thumbs_up: "👍", surprised: "😮",
});
/** Milliseconds auto-pass waits before it passes: the play it passes on is seen first. */
const AUTO_PASS_PAUSE = 400;
/** Seconds a chat bubble stays by its seat. */
const BUBBLE_SECONDS = 4;

/** @typedef {import("./i18n.js").Lang} Lang */

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const input = (/** @type {string} */ id) => /** @type {HTMLInputElement} */ ($(id));
const button = (/** @type {string} */ id) => /** @type {HTMLButtonElement} */ ($(id));

// --- preferences, kept in this browser --------------------------------------------------

/** @returns {Storage} */
function storage() {
  try {
    localStorage.setItem("ddz.probe", "1");
    localStorage.removeItem("ddz.probe");
    return localStorage;
  } catch {
    /** @type {Map<string, string>} */
    const mem = new Map();
    return /** @type {Storage} */ (/** @type {unknown} */ ({
      getItem: (/** @type {string} */ k) => mem.get(k) ?? null,
      setItem: (/** @type {string} */ k, /** @type {string} */ v) => mem.set(k, v),
      removeItem: (/** @type {string} */ k) => mem.delete(k),
    }));
  }
}
const store = storage();
const PREFS_KEY = "ddz.prefs";

/** @type {{name: string, named: boolean, lang: Lang | null, counter: boolean,
 *   mute: boolean, autoPass: boolean,
 *   practice: {deals: number, level: string, speed: string},
 *   create: {deals: number, public: boolean}}} */
const prefs = {
  name: `Player ${100 + Math.floor(Math.random() * 900)}`,
  named: false,
  lang: null,
  counter: false,
  mute: false,
  autoPass: false,
  practice: { deals: 3, level: "normal", speed: "normal" },
  create: { deals: 3, public: false },
  ...JSON.parse(store.getItem(PREFS_KEY) ?? "{}"),
};
function savePrefs() {
  store.setItem(PREFS_KEY, JSON.stringify(prefs));
}

// --- state ------------------------------------------------------------------------------

let state = initialState();
const ui = {
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
};
ui.t = translator(ui.lang);

const tokenKey = `ddz.token.${location.host}`;
const conn = new Connection({
  url: `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`,
  name: () => prefs.name,
  storage: store,
  tokenKey,
  onMessage: dispatch,
});

const hand = new Hand($("hand"), () => {
  ui.hintPass = false;
  renderNow(); // a pick shows (and the legality line follows) before the next event
});

/** Every message, the socket's own included, in the order they came. */
function dispatch(/** @type {{type: string, [k: string]: any}} */ msg) {
  const before = state;
  state = reduce(state, msg, performance.now() / 1000);
  react(before, msg);
  scheduleRender();
}

/** What a message does beyond the state: messages to show, links to act on. */
function react(/** @type {any} */ before, /** @type {{type: string, [k: string]: any}} */ msg) {
  if (msg.type === "error") {
    if (msg.request_id === ui.busy) ui.busy = null;
    const chat = msg.request_id !== null && msg.request_id === ui.chatRequest;
    toast(chat && msg.code === "rate_limited" ? ui.t("chat_limited") : errorText(msg.code, msg.message));
  } else if (!msg.type.startsWith("_") && msg.type !== "pong" && msg.type !== "room_list") {
    ui.busy = null;
  }
  if (msg.type === "welcome") {
    if (ui.usableAt === null) ui.usableAt = performance.now();
    if (!msg.room) actOnLink();
    listRooms();
    getHistory();
  }
  if (msg.type === "chat_said" && state.room) {
    const mine = msg.seat === mySeat(state);
    if (!prefs.mute || mine) {
      $("chat-announce").textContent = ui.t("said", { name: seatName(msg.seat), text: phraseText(msg.phrase) });
    }
  }
  if (msg.type === "rematch_asked" && state.rematch) announce(rematchText());
  if (msg.type === "replay") {
    ui.replayDeal = 0;
    ui.replayStep = 0;
  }
  if (["turn", "snapshot", "seat_control", "played", "passed"].includes(msg.type)) autoPass();
  if (msg.type === "_closed" || msg.type === "_down") ui.busy = null;
  if (msg.type === "turn" && msg.seat === mySeat(state) && mySeat(state) !== null) {
    announce(ui.t(msg.action === "bid" ? "your_turn_bid" : "your_turn_lead").split(":")[0]);
  }
  if (msg.type === "played" && msg.seat !== mySeat(state)) {
    announce(`${seatName(msg.seat)}: ${kindName(ui.t, ui.lang, msg.kind)}`);
  }
  if ((msg.type === "left" || msg.type === "room_closed" || msg.type === "_lobby") && !state.room) {
    listRooms();
    getHistory();
  }
  if (state.notice && state.notice !== before.notice) {
    toast(ui.t(state.notice));
  }
}

/** Auto-pass (when switched on): on my play turn with nothing in my hand that beats the
 * table, pass at once and say so. Once a turn. */
function autoPass() {
  if (!prefs.autoPass || ui.busy !== null) return;
  const other = nothingBeats(state);
  const turn = myTurn(state);
  if (!other || !turn) return;
  const key = `${state.room.code}:${turn.version}`;
  if (ui.autoPassed === key) return;
  ui.autoPassed = key;
  toast(ui.t("auto_passed", { play: playName(other) }));
  // a moment to see the play it passes on; then pass, if the turn is still this one
  setTimeout(() => {
    const now = myTurn(state);
    if (!prefs.autoPass || !now || now.version !== turn.version || ui.busy !== null) return;
    if (send({ type: "pass", version: turn.version }, true)) hand.clear();
  }, AUTO_PASS_PAUSE);
}

/** A play as the legality line names it: "Pair 对子 8 8". @param {any} play */
function playName(play) {
  return play ? `${kindName(ui.t, ui.lang, play.kind)} ${play.cards.map((/** @type {number} */ r) => RANK_TEXT[r]).join(" ")}` : "";
}

/** A phrase's text in the page's language (an emote: its face). @param {string} phrase */
function phraseText(phrase) {
  const face = /** @type {Record<string, string>} */ (EMOTES)[phrase];
  return face ? `${face} ${ui.t(`phrase_${phrase}`)}` : ui.t(`phrase_${phrase}`);
}

function rematchText() {
  const r = state.rematch;
  if (!r) return "";
  return r.name ? ui.t("wants_rematch", { name: r.name }) : ui.t("someone_wants_rematch");
}

function getHistory() {
  if (!state.room && state.conn === "open") conn.send({ type: "get_history" });
}

function errorText(/** @type {string} */ code, /** @type {string} */ message) {
  const key = `err_${code}`;
  const text = ui.t(key);
  return text === key ? ui.t("err_generic", { message }) : text;
}

/**
 * Send a request on the live session; false when there is none (the screen says so).
 * @param {{type: string, [k: string]: any}} msg
 * @param {boolean} [action] a game action: the buttons wait for its answer
 */
function send(msg, action = false) {
  const id = conn.send(msg);
  if (id === null) return false;
  if (action) ui.busy = id;
  scheduleRender();
  return true;
}

// --- links: /#/join/CODE and /#/watch/CODE ----------------------------------------------

// A room code as the server takes it (protocol RoomCode): letters and digits, a private
// room's long code in dash-joined groups (K7P2Q-M4XTR).
const CODE_RE = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,22}[A-Za-z0-9])?$/;

function readLink() {
  const m = location.hash.match(/^#\/(join|watch)\/([A-Za-z0-9-]{1,24})$/);
  ui.pending = m && CODE_RE.test(m[2]) ? { code: m[2].toUpperCase(), watch: m[1] === "watch" } : null;
}

/** After hello, outside any room: a join link joins at once when this browser has a
 * name of its own, or shows a button to join under the name in the box. */
function actOnLink() {
  if (!ui.pending || state.room) return;
  if (prefs.named) enterPending();
}

function enterPending() {
  const link = ui.pending;
  if (!link) return;
  if (send({ type: link.watch ? "watch" : "join_room", code: link.code })) {
    ui.pending = null;
    history.replaceState(null, "", location.pathname);
  }
}

// --- rendering --------------------------------------------------------------------------

let frame = 0;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let frameTimer;
function renderNow() {
  if (frame) cancelAnimationFrame(frame);
  clearTimeout(frameTimer);
  frame = 0;
  render();
}

/** Render in the next animation frame, or within 100 ms when no frame comes (a browser
 * may hold animation frames back while it thinks nothing on the page moves). */
function scheduleRender() {
  if (frame) return;
  frame = requestAnimationFrame(renderNow);
  frameTimer = setTimeout(renderNow, 100);
}

function seatName(/** @type {number} */ seat) {
  const s = state.room?.seats?.[seat];
  return s?.name || `${seat + 1}`;
}

function applyLanguage() {
  ui.t = translator(ui.lang);
  document.documentElement.lang = ui.lang === "zh" ? "zh-Hans" : ui.lang;
  for (const el of document.querySelectorAll("[data-i18n]")) {
    el.textContent = ui.t(/** @type {HTMLElement} */ (el).dataset.i18n ?? "");
  }
  $("hand").setAttribute("aria-label", ui.t("your_hand"));
  for (const el of document.querySelectorAll("[data-label]")) {
    const key = /** @type {HTMLElement} */ (el).dataset.label ?? "";
    el.setAttribute("aria-label", ui.t(key));
    el.setAttribute("title", ui.t(key));
  }
  fillChat();
  $("table").setAttribute("aria-label", ui.t("title"));
  $("lang").setAttribute("aria-label", ui.t("language"));
  scheduleRender();
}

function render() {
  const t = ui.t;
  const room = state.room;
  const table = room?.table ?? null;
  const screen = room === null ? "lobby" : table === null ? "waiting" : "table";
  $("lobby").hidden = screen !== "lobby";
  $("waiting").hidden = screen !== "waiting";
  $("table").hidden = screen !== "table";
  document.body.dataset.screen = screen;
  renderStatus();
  renderBar();
  if (screen === "lobby") renderLobby();
  else if (screen === "waiting") renderWaiting();
  else renderTable();
  renderOverlays();
  tick();
  void t;
}

function renderStatus() {
  const t = ui.t;
  const box = $("status");
  let text = "";
  if (state.conn === "connecting") text = t("connecting");
  else if (state.conn === "reconnecting") text = t("reconnecting");
  else if (state.conn === "down") text = t("server_down", { s: state.retryIn ?? 1 });
  else if (state.conn === "outdated") text = t("outdated");
  box.hidden = text === "";
  box.dataset.state = state.conn;
  $("status-text").textContent = text;
  $("retry").hidden = state.conn !== "down";
  $("reload").hidden = state.conn !== "outdated";
  document.body.classList.toggle("stale", !state.live && state.room !== null);
}

function renderBar() {
  const t = ui.t;
  const room = state.room;
  const bar = $("bar-room");
  bar.replaceChildren();
  const leave = button("leave");
  leave.hidden = room === null || state.result !== null;
  leave.textContent = ui.leaveArmed ? t("leave_confirm") : t("leave");
  $("counter-label").hidden = !room?.table || mySeat(state) === null;
  if (!room) return;
  const parts = [`${room.code}`];
  const table = room.table;
  if (table) {
    parts.push(t("deal_of", { n: table.deal_no, total: table.deals_total }));
    if (table.base) parts.push(`${t("base")} ${table.base}`);
    parts.push(`${t("multiplier")} ×${table.multiplier}`);
  }
  if (room.watchers) parts.push(t("watchers", { n: room.watchers }));
  for (const p of parts) {
    const span = document.createElement("span");
    span.textContent = p;
    bar.append(span);
  }
}

function renderLobby() {
  const t = ui.t;
  const nameBox = input("name");
  if (document.activeElement !== nameBox) nameBox.value = prefs.name;
  const open = state.conn === "open";
  for (const id of ["practice-start", "quick-start", "create-start", "join-btn", "watch-btn"]) {
    button(id).disabled = !open;
  }
  const q = state.queue;
  $("quick-wait").hidden = q === null;
  button("quick-start").hidden = q !== null;
  const prompt = ui.pending !== null && !prefs.named;
  $("join-prompt").hidden = !prompt;
  if (prompt && ui.pending) {
    button("join-prompt-btn").textContent = ui.pending.watch
      ? `${t("watch")} ${ui.pending.code}`
      : t("join_code", { code: ui.pending.code });
  }
  const list = $("rooms");
  const rooms = state.rooms ?? [];
  list.replaceChildren();
  if (rooms.length === 0) {
    const li = document.createElement("li");
    li.className = "help";
    li.textContent = t("no_rooms");
    list.append(li);
  }
  for (const r of rooms) {
    const li = document.createElement("li");
    const info = document.createElement("span");
    const deal = r.deal_no ? t("deal_of", { n: r.deal_no, total: r.deals }) : t("not_started");
    const names = r.seats.map((/** @type {string} */ n) => n || "—").join(" · ");
    info.innerHTML = "";
    const code = document.createElement("strong");
    code.textContent = r.code;
    info.append(code, ` ${deal} · ${names} · ${t("watchers", { n: r.watchers })}`);
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = t("watch");
    b.dataset.code = r.code;
    b.setAttribute("aria-label", `${t("watch")} ${r.code}`);
    li.append(info, b);
    list.append(li);
  }
  renderHistory();
}

/** The lobby's list of my last matches: date, mode, deals, totals, result, Replay. */
function renderHistory() {
  const t = ui.t;
  const list = $("history");
  const entries = state.history ?? [];
  list.replaceChildren();
  if (!entries.length) {
    const li = document.createElement("li");
    li.className = "help";
    li.textContent = t("no_history");
    list.append(li);
  }
  for (const e of entries) {
    const li = document.createElement("li");
    li.dataset.code = e.code;
    const info = document.createElement("span");
    const date = document.createElement("strong");
    date.textContent = when(e.ended_at);
    const result = document.createElement("span");
    result.className = `result ${e.result}`;
    result.textContent = t(`result_${e.result}`);
    const totals = e.totals
      .map((/** @type {number} */ v, /** @type {number} */ i) => {
        const who = e.seats[i] || `${i + 1}`;
        return `${i === e.your_seat ? t("seats_you", { name: who }) : who} ${signed(v)}`;
      })
      .join(", ");
    const line = ` · ${t(`mode_${e.mode}`)} · ${t("deals_played", { n: e.deals, total: e.deals_total })} · `;
    info.append(date, line, result, ` · ${totals}`);
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = t("replay");
    b.dataset.replay = e.code;
    b.setAttribute("aria-label", t("replay_of", { date: when(e.ended_at) }));
    li.append(info, b);
    list.append(li);
  }
}

function renderWaiting() {
  const t = ui.t;
  const room = state.room;
  $("room-code").textContent = room.code;
  const url = `${location.origin}/#/join/${room.code}`;
  const link = /** @type {HTMLAnchorElement} */ ($("join-url"));
  link.href = url;
  link.textContent = url;
  const list = $("wait-seats");
  list.replaceChildren();
  room.seats.forEach((/** @type {any} */ seat, /** @type {number} */ i) => {
    const li = document.createElement("li");
    let name = seat.kind === "empty" ? t("empty_seat") : seat.name ?? "";
    if (i === room.your_seat) name = t("seats_you", { name });
    const tags = [];
    if (seat.kind === "bot") tags.push(`${t("bot")} (${t(`level_${seat.level}`)})`);
    if (seat.kind === "person" && !seat.connected) tags.push(t("offline"));
    if (seat.kind !== "empty") tags.push(seat.ready ? `✓ ${t("is_ready")}` : t("not_ready"));
    li.textContent = `${name}${tags.length ? " · " + tags.join(" · ") : ""}`;
    li.className = seat.ready ? "ready" : "";
    list.append(li);
  });
  const creator = room.creator_seat !== null && room.creator_seat === room.your_seat;
  const empty = room.seats.some((/** @type {any} */ s) => s.kind === "empty");
  $("bot-panel").hidden = !creator || !empty;
  const me = room.your_seat;
  const ready = button("wait-ready");
  ready.hidden = me === null;
  ready.disabled = !state.live || (me !== null && room.seats[me].ready);
  button("seat-bot").disabled = !state.live;
}

function renderTable() {
  const t = ui.t;
  const room = state.room;
  const table = room.table;
  const me = mySeat(state);
  const order = seatOrder(state);
  const turn = table.turn;
  order.forEach((seat, pos) => renderSeat($(`pos-${pos}`), seat, pos, table, turn));
  // kitty: face down until shown
  const kitty = $("kitty");
  if (table.kitty) showCards(kitty, table.kitty, t);
  else if (kitty.dataset.down !== "1" || kitty.childElementCount !== 3) {
    kitty.replaceChildren(...[0, 1, 2].map(() => backElement()));
  }
  kitty.dataset.down = table.kitty ? "0" : "1";
  const watching = $("watching");
  watching.hidden = me !== null;
  watching.textContent = `◉ ${t("watching")} · ${t("watchers", { n: room.watchers })}`;
  // the card counter
  const counter = $("counter");
  counter.hidden = !prefs.counter || me === null;
  if (!counter.hidden) {
    const items = unseen(state).map(({ rank, left }) => {
      const li = document.createElement("li");
      const r = document.createElement("span");
      r.className = "r";
      r.textContent = rank >= 16 ? (rank === 16 ? "小" : "大") : RANK_TEXT[rank];
      const n = document.createElement("span");
      n.className = "n";
      n.textContent = String(left);
      li.className = left === 0 ? "gone" : "";
      li.setAttribute("aria-label", `${rank >= 16 ? t(rank === 16 ? "small_joker" : "big_joker") : t(`rank_${rank}`)}: ${left}`);
      li.append(r, n);
      return li;
    });
    $("counter-list").replaceChildren(...items);
  }
  $("table-note").textContent =
    state.voids > 0 && table.phase === "bidding" ? t("void_deal") : "";
  // my hand and what I may do
  const mine = myTurn(state);
  const live = state.live && ui.busy === null;
  const cards = table.hand ?? [];
  $("hand").hidden = me === null;
  hand.set(cards, live && table.phase === "playing" && !table.bot_control[me ?? 0], t);
  const bidding = mine !== null && mine.action === "bid";
  const playing = me !== null && table.phase === "playing";
  $("bid-buttons").hidden = !bidding;
  $("play-buttons").hidden = !playing;
  if (bidding) {
    const allowed = legalBids(state);
    for (const b of [1, 2, 3]) {
      const el = button(`bid-${b}`);
      el.disabled = !live || !allowed.includes(b);
      el.textContent = t("bid_n", { n: b });
      el.setAttribute("aria-label", t("bid", { n: b }));
    }
    button("bid-0").disabled = !live || !mine.may_pass;
  }
  const v = verdict(state, hand.selected);
  if (playing) {
    button("play").disabled = !live || mine === null || v.level !== "ok";
    button("pass").disabled = !live || mine === null || !mine.may_pass;
    button("hint").disabled = !live || mine === null;
  }
  renderLegality(v, mine, table, me);
  // a bot holds my seat
  const botted = me !== null && table.bot_control[me] && table.phase !== "over";
  $("bot-banner").hidden = !botted;
  const pending = me !== null && (table.resume_pending ?? [])[me];
  $("bot-banner-text").textContent = t(pending ? "resume_pending" : "bot_playing");
  button("resume").hidden = !!pending;
  button("resume").disabled = !state.live;
  // bot speed in practice
  const speed = /** @type {HTMLSelectElement} */ ($("speed"));
  $("speed-box").hidden = room.mode !== "practice" || me === null;
  if (document.activeElement !== speed) speed.value = room.bot_speed;
  // chat (seats only: the server refuses watchers), mute, auto-pass
  const chat = button("chat-open");
  chat.hidden = me === null;
  chat.disabled = !state.live;
  if (me === null || !state.live) $("chat-panel").hidden = true;
  chat.setAttribute("aria-expanded", String(!$("chat-panel").hidden));
  $("autopass-label").hidden = me === null;
}

/**
 * @param {ReturnType<typeof verdict>} v
 * @param {any} mine
 * @param {any} table
 * @param {number | null} me
 */
function renderLegality(v, mine, table, me) {
  const t = ui.t;
  const line = $("legality");
  let level = "info";
  let text = "";
  const name = playName;
  if (mine && mine.action === "bid") {
    text = table.forced_bid && !mine.may_pass ? t("must_bid") : t("your_turn_bid");
  } else if (mine && ui.hintPass) {
    text = t("hint_pass");
  } else if (mine && v.key) {
    level = v.level;
    const play = v.key === "your_turn_beat" ? v.other : v.play;
    text = t(v.key, { play: name(play), other: name(v.other) });
  } else if (table.turn && table.turn.seat !== me && table.phase !== "over") {
    text = t("waiting_for", { name: seatName(table.turn.seat) });
  }
  line.dataset.level = level;
  const icon = /** @type {HTMLElement} */ (line.querySelector(".icon"));
  icon.textContent = level === "ok" ? "✓" : level === "bad" ? "✗" : text ? "›" : "";
  /** @type {HTMLElement} */ (line.querySelector(".text")).textContent = text;
}

function backElement() {
  const el = document.createElement("span");
  el.className = "card back";
  el.setAttribute("aria-hidden", "true");
  return el;
}

/**
 * A seat's last act in the trick, on the table and in the replay: "pass", or its cards
 * and the kind of play (nothing yet: left empty).
 * @param {HTMLElement} trick
 * @param {any} slot
 * @param {(key: string, args?: any) => string} t
 */
function showSlot(trick, slot, t) {
  if (slot === "pass") {
    trick.textContent = t("passed");
    trick.classList.add("said");
  } else if (slot) {
    const cards = document.createElement("div");
    cards.className = "cards small";
    showCards(cards, slot.cards, t);
    const kind = document.createElement("span");
    kind.className = "kind";
    kind.textContent = kindName(t, ui.lang, slot.kind);
    trick.append(cards, kind);
  }
}

/**
 * @param {HTMLElement} box
 * @param {number} seat
 * @param {number} pos 0 bottom, 1 right, 2 left
 * @param {any} table
 * @param {any} turn
 */
function renderSeat(box, seat, pos, table, turn) {
  const t = ui.t;
  const room = state.room;
  const view = room.seats[seat];
  const me = mySeat(state);
  box.dataset.seat = String(seat);
  box.classList.toggle("on-turn", !!turn && turn.seat === seat);
  const who = document.createElement("div");
  who.className = "who";
  const name = document.createElement("span");
  name.className = "name";
  name.textContent = seat === me ? t("seats_you", { name: view.name ?? "" }) : view.name ?? "";
  who.append(name);
  const badge = (/** @type {string} */ cls, /** @type {string} */ text) => {
    const b = document.createElement("span");
    b.className = `badge ${cls}`;
    b.textContent = text;
    who.append(b);
  };
  if (table.landlord === seat) badge("landlord", `♛ ${t("landlord")}`);
  else if (table.landlord !== null) badge("farmer", t("farmer"));
  if (view.kind === "bot" || table.bot_control[seat]) badge("bot", t("bot"));
  if (view.kind === "person" && !view.connected) badge("offline", t("offline"));
  const info = document.createElement("div");
  info.className = "info";
  const count = table.card_counts[seat];
  const pile = document.createElement("span");
  const low = count > 0 && count <= 2;
  pile.className = `pile${low ? " low" : ""}`;
  pile.setAttribute("role", "img");
  pile.setAttribute("aria-label", low ? t("cards_low", { n: count }) : t("cards_left", { n: count }));
  pile.textContent = low ? `⚠ ${count}` : String(count);
  const total = document.createElement("span");
  total.className = "total";
  const score = table.totals[seat];
  total.textContent = `${t("total")} ${score > 0 ? "+" : ""}${score}`;
  const clock = document.createElement("span");
  clock.className = "clock";
  clock.setAttribute("role", "timer");
  clock.hidden = !(turn && turn.seat === seat);
  info.append(pile, total, clock);
  const trick = document.createElement("div");
  trick.className = "trick";
  const slot = state.trick[seat];
  if (table.phase === "bidding") {
    const bid = table.bids.find((/** @type {number[]} */ b) => b[0] === seat);
    if (bid) {
      trick.textContent = bid[1] ? t("bid", { n: bid[1] }) : t("no_bid");
      trick.classList.add("said");
    }
  } else {
    showSlot(trick, slot, t);
  }
  box.replaceChildren(who, info, trick);
  const said = state.said[seat];
  if (said && bubbleLive(said) && (!prefs.mute || seat === me)) {
    const bubble = document.createElement("div");
    const face = /** @type {Record<string, string>} */ (EMOTES)[said.phrase];
    bubble.className = `bubble${face ? " emote" : ""}`;
    bubble.dataset.phrase = said.phrase;
    if (face) {
      bubble.textContent = face;
      bubble.title = ui.t(`phrase_${said.phrase}`);
    } else bubble.textContent = ui.t(`phrase_${said.phrase}`);
    box.append(bubble);
  }
  void pos;
}

/** @param {{at: number}} said */
function bubbleLive(said) {
  return performance.now() / 1000 - said.at < BUBBLE_SECONDS;
}

function renderOverlays() {
  const t = ui.t;
  const table = state.room?.table;
  const me = mySeat(state);
  const between = !!table && table.phase === "between_deals" && !!table.last_deal;
  $("summary").hidden = !between;
  if (between) {
    const deal = table.last_deal;
    $("summary-h").textContent = t("summary_title", { n: deal.deal_no });
    fillSummary(deal, $("summary-winner"), $("summary-rows"), $("summary-breakdown"), table);
    const ready = button("summary-ready");
    ready.hidden = me === null;
    ready.disabled = !state.live || (me !== null && table.ready[me]);
  } else if ($("summary-rows").childElementCount) {
    $("summary-rows").replaceChildren(); // a past deal's hands go with its summary
  }
  const over = state.result !== null || (!!table && table.phase === "over" && !!table.winners);
  $("result").hidden = !over;
  if (!over && $("result-last").childElementCount) $("result-last").replaceChildren();
  const again = button("again");
  again.hidden = me === null;
  again.disabled = !state.live || state.closed !== "match_over";
  button("result-replay").disabled = !state.live || state.closed === null;
  renderReplay();
  renderRematch();
  if (over && table) {
    const winners = state.result?.winners ?? table.winners ?? [];
    const names = winners.map((/** @type {number} */ s) => (s === me ? t("seats_you", { name: seatName(s) }) : seatName(s)));
    $("result-winners").textContent = `★ ${t(winners.length > 1 ? "winners" : "winner")}: ${names.join(", ")}`;
    const last = $("result-last");
    last.replaceChildren();
    if (table.last_deal) {
      const w = document.createElement("p");
      const rows = document.createElement("tbody");
      const b = document.createElement("p");
      const tbl = document.createElement("table");
      tbl.className = "scores";
      tbl.append(rows);
      fillSummary(table.last_deal, w, rows, b, table);
      last.append(w, tbl, b);
    }
    const head = document.createElement("tr");
    const th = (/** @type {string} */ text) => {
      const c = document.createElement("th");
      c.textContent = text;
      return c;
    };
    head.append(th(t("deal")), ...[0, 1, 2].map((s) => th(seatName(s))));
    $("result-head").replaceChildren(head);
    const scores = state.result?.deal_scores ?? table.deal_scores;
    const totals = state.result?.totals ?? table.totals;
    const rows = scores.map((/** @type {number[]} */ row, /** @type {number} */ i) => {
      const tr = document.createElement("tr");
      tr.append(th(String(i + 1)), ...row.map((v) => cell(signed(v))));
      return tr;
    });
    const tot = document.createElement("tr");
    tot.className = "totals";
    tot.append(th(t("total")), ...totals.map((/** @type {number} */ v) => cell(signed(v))));
    $("result-rows").replaceChildren(...rows, tot);
  }
}

/** The rematch offer: "Ann wants a rematch", its countdown, Accept; shown outside a live
 * room (on the match-end screen, or in the lobby). */
function renderRematch() {
  const r = state.rematch;
  const show = r !== null && state.live && (state.room === null || state.result !== null);
  $("rematch-prompt").hidden = !show;
  if (!show) return;
  $("rematch-text").textContent = rematchText();
  button("rematch-accept").disabled = ui.busy !== null;
}

/** A date and time as this page's language writes it. @param {number} seconds */
function when(seconds) {
  const tag = ui.lang === "zh" ? "zh-CN" : ui.lang;
  try {
    return new Date(seconds * 1000).toLocaleString(tag, { dateStyle: "medium", timeStyle: "short" });
  } catch {
    return new Date(seconds * 1000).toISOString();
  }
}

/** The replay viewer: a finished match deal by deal, every hand, step by step. Its hands
 * leave the page with it (closed, nothing of it stays in the DOM). */
function renderReplay() {
  const t = ui.t;
  const data = state.replay;
  const box = $("replay");
  if (!data || !data.deals.length) {
    if (!box.hidden) {
      box.hidden = true;
      for (const id of ["replay-seats", "replay-kitty", "replay-step", "replay-info", "replay-deal"]) {
        $(id).replaceChildren();
      }
    }
    return;
  }
  if (box.hidden) {
    box.hidden = false;
    $("replay-sheet").focus(); // for its keys
  }
  ui.replayDeal = Math.max(0, Math.min(ui.replayDeal, data.deals.length - 1));
  const deal = data.deals[ui.replayDeal];
  const frame = replayFrame(data, ui.replayDeal, ui.replayStep);
  ui.replayStep = frame.step;
  const name = (/** @type {number} */ seat) => data.seats[seat] || `${seat + 1}`;
  const info = [data.code, t(`mode_${data.mode}`), when(data.ended_at)];
  if (data.result) {
    info.push(data.result.totals.map((/** @type {number} */ v, /** @type {number} */ i) => `${name(i)} ${signed(v)}`).join(", "));
  }
  $("replay-info").textContent = info.join(" · ");
  $("replay-deal").textContent =
    t("replay_deal", { n: deal.deal_no, total: data.deals_total }) + (deal.void ? ` · ${t("void_tag")}` : "");
  button("replay-deal-prev").disabled = ui.replayDeal === 0;
  button("replay-deal-next").disabled = ui.replayDeal >= data.deals.length - 1;
  const seats = [0, 1, 2].map((seat) => {
    const row = document.createElement("div");
    row.className = "replay-seat";
    row.dataset.seat = String(seat);
    const last = frame.last;
    if (last && "seat" in last && last.seat === seat && last.type !== "landlord") row.classList.add("acted");
    const who = document.createElement("div");
    who.className = "who";
    const n = document.createElement("span");
    n.className = "name";
    n.textContent = name(seat);
    who.append(n);
    if (frame.landlord === seat) {
      const b = document.createElement("span");
      b.className = "badge landlord";
      b.textContent = `♛ ${t("landlord")}`;
      who.append(b);
    }
    if (frame.botControl[seat]) {
      const b = document.createElement("span");
      b.className = "badge";
      b.textContent = t("bot");
      who.append(b);
    }
    const count = document.createElement("span");
    count.className = "count";
    count.textContent = t("cards_left", { n: frame.hands[seat].length });
    who.append(count);
    const trick = document.createElement("div");
    trick.className = "trick";
    const slot = frame.trick[seat];
    if (frame.landlord === null && frame.bids[seat] !== null) {
      trick.textContent = frame.bids[seat] ? t("bid", { n: frame.bids[seat] ?? 0 }) : t("no_bid");
      trick.classList.add("said");
    } else {
      showSlot(trick, slot, t);
    }
    const cards = document.createElement("div");
    cards.className = "cards small hand-cards";
    showCards(cards, frame.hands[seat], t);
    if (!frame.hands[seat].length) cards.textContent = "—";
    row.append(who, cards, trick);
    return row;
  });
  $("replay-seats").replaceChildren(...seats);
  const kitty = $("replay-kitty");
  showCards(kitty, deal.kitty, t);
  kitty.classList.toggle("taken", frame.kittyTaken);
  const parts = [t("step_of", { n: frame.step, total: frame.steps }), describeEvent(frame.last, name)];
  if (frame.step === frame.steps) {
    if (deal.end) {
      const e = deal.end;
      parts.push(
        `${t(e.winner === "landlord" ? "landlord_wins" : "farmers_win")}: ${e.score.scores
          .map((/** @type {number} */ v, /** @type {number} */ i) => `${name(i)} ${signed(v)}`)
          .join(", ")} (${t("breakdown", { base: e.score.base, mult: e.score.multiplier })})`,
      );
    } else if (!deal.void) parts.push(t("deal_unfinished"));
  }
  $("replay-step").textContent = parts.join(" · ");
  button("replay-first").disabled = button("replay-prev").disabled = frame.step === 0;
  button("replay-last").disabled = button("replay-next").disabled = frame.step >= frame.steps;
}

/**
 * One step of a replay in words: "Ann bids 2", "Bo: Pair 对子 8 8", "Cy passes".
 * @param {any} ev a replay event, or null (the deal as dealt)
 * @param {(seat: number) => string} name
 */
function describeEvent(ev, name) {
  const t = ui.t;
  if (!ev) return t("step_dealt");
  switch (ev.type) {
    case "bid":
      return ev.bid ? t("ev_bid", { name: name(ev.seat), n: ev.bid }) : t("ev_no_bid", { name: name(ev.seat) });
    case "deal_void":
      return t("ev_void");
    case "landlord":
      return t("ev_landlord", { name: name(ev.seat), base: ev.base });
    case "played": {
      const ranks = ev.cards.map(cardRank).sort((/** @type {number} */ a, /** @type {number} */ b) => a - b);
      return t("ev_played", { name: name(ev.seat), play: playName({ kind: ev.kind, cards: ranks }) });
    }
    case "passed":
      return t("ev_passed", { name: name(ev.seat) });
    case "seat_control":
      return t(ev.bot ? "ev_bot" : "ev_person", { name: name(ev.seat) });
  }
  return "";
}

/** Move the replay viewer: `deal` and `step` relative, or "first"/"last" step. */
function replayMove(/** @type {{deal?: number, step?: number | "first" | "last"}} */ move) {
  const data = state.replay;
  if (!data) return;
  if (move.deal) {
    const next = Math.max(0, Math.min(ui.replayDeal + move.deal, data.deals.length - 1));
    if (next !== ui.replayDeal) ui.replayStep = 0;
    ui.replayDeal = next;
  }
  const steps = stepCount(data.deals[ui.replayDeal]);
  if (move.step === "first") ui.replayStep = 0;
  else if (move.step === "last") ui.replayStep = steps;
  else if (move.step) ui.replayStep = Math.max(0, Math.min(ui.replayStep + move.step, steps));
  renderNow();
}

function closeReplay() {
  dispatch({ type: "_replay_closed" });
  renderNow();
  const back = state.result !== null ? button("result-replay") : null;
  back?.focus();
}

function signed(/** @type {number} */ n) {
  return n > 0 ? `+${n}` : String(n);
}

function cell(/** @type {string} */ text) {
  const td = document.createElement("td");
  td.textContent = text;
  return td;
}

/**
 * A deal's end: who won, each seat's remaining cards and points, how the points came.
 * @param {any} deal the DealEnded message
 * @param {HTMLElement} winner
 * @param {HTMLElement} rows
 * @param {HTMLElement} breakdown
 * @param {any} table
 */
function fillSummary(deal, winner, rows, breakdown, table) {
  const t = ui.t;
  const me = mySeat(state);
  winner.textContent = t(deal.winner === "landlord" ? "landlord_wins" : "farmers_win");
  const trs = [0, 1, 2].map((seat) => {
    const tr = document.createElement("tr");
    const who = document.createElement("th");
    who.scope = "row";
    const name = seat === me ? t("seats_you", { name: seatName(seat) }) : seatName(seat);
    who.textContent = `${name}${seat === deal.landlord ? ` ♛ ${t("landlord")}` : ""}`;
    const cardsCell = document.createElement("td");
    const cards = document.createElement("div");
    cards.className = "cards small";
    showCards(cards, deal.hands[seat] ?? [], t);
    if (!(deal.hands[seat] ?? []).length) cards.textContent = "—";
    cardsCell.append(cards);
    const pts = cell(signed(deal.score.scores[seat]));
    pts.className = deal.score.scores[seat] > 0 ? "plus" : "minus";
    const total = cell(`${t("total")} ${signed(deal.totals[seat])}`);
    const ready = cell(table.phase === "between_deals" && table.ready[seat] ? `✓ ${t("is_ready")}` : "");
    tr.append(who, cardsCell, pts, total, ready);
    return tr;
  });
  rows.replaceChildren(...trs);
  const s = deal.score;
  const parts = [t("breakdown", { base: s.base, mult: s.multiplier })];
  if (s.bombs) parts.push(t("bombs", { n: s.bombs }));
  if (s.rockets) parts.push(t("rocket"));
  if (s.spring) parts.push(t("spring"));
  if (s.anti_spring) parts.push(t("anti_spring"));
  breakdown.textContent = parts.join(" · ");
}

/** Clocks that run between renders: the turn countdown, the next deal, the queue. */
function tick() {
  const t = ui.t;
  const now = performance.now() / 1000;
  const left = secondsLeft(state.countdown, now);
  for (const clock of document.querySelectorAll(".seat .clock")) {
    const el = /** @type {HTMLElement} */ (clock);
    if (el.hidden || left === null) {
      el.textContent = el.hidden ? "" : "…";
      continue;
    }
    const s = Math.ceil(left);
    el.textContent = `${s} s`;
    el.setAttribute("aria-label", t("turn_countdown", { s }));
    el.classList.toggle("urgent", s <= 5);
  }
  const table = state.room?.table;
  $("summary-clock").textContent =
    table && table.phase === "between_deals" && left !== null
      ? t("next_deal_in", { s: Math.ceil(left) })
      : "";
  if (state.rematch) {
    const r = secondsLeft(state.rematch.countdown, now) ?? 0;
    if (r <= 0) dispatch({ type: "_rematch_dismissed" });
    else $("rematch-clock").textContent = t("rematch_left", { s: Math.ceil(r) });
  }
  for (const el of document.querySelectorAll(".seat .bubble")) {
    const said = state.said[Number(/** @type {HTMLElement} */ (el.parentElement).dataset.seat)];
    if (!said || !bubbleLive(said)) scheduleRender(); // its time is up
  }
  const q = state.queue;
  if (q) {
    const waited = Math.floor(now - q.since);
    const mmss = `${Math.floor(waited / 60)}:${String(waited % 60).padStart(2, "0")}`;
    const parts = [t("waiting_players", { waited: mmss })];
    parts.push(t("bots_in", { s: Math.max(0, Math.ceil(q.wait - (now - q.since))) }));
    if (q.waiting > 1) parts.push(t("others_waiting", { n: q.waiting }));
    $("quick-text").textContent = parts.join(" · ");
  }
}

// --- messages on screen -----------------------------------------------------------------

function toast(/** @type {string} */ text) {
  const el = $("toast");
  el.textContent = text;
  el.hidden = false;
  clearTimeout(ui.toastTimer);
  ui.toastTimer = setTimeout(() => {
    el.hidden = true;
  }, 4000);
}

function announce(/** @type {string} */ text) {
  $("announce").textContent = text;
}

// --- input ------------------------------------------------------------------------------

/** @param {HTMLFormElement} form @param {string} name */
function radio(form, name) {
  const el = /** @type {HTMLInputElement | null} */ (form.querySelector(`input[name=${name}]:checked`));
  return el ? Number(el.value) : NaN;
}

/** @param {HTMLFormElement} form @param {string} name @param {string | number} value */
function setField(form, name, value) {
  const el = form.elements.namedItem(name);
  if (el instanceof RadioNodeList) el.value = String(value);
  else if (el instanceof HTMLInputElement && el.type === "checkbox") el.checked = Boolean(value);
  else if (el instanceof HTMLSelectElement || el instanceof HTMLInputElement) el.value = String(value);
}

function restoreForms() {
  const practice = /** @type {HTMLFormElement} */ ($("practice-form"));
  setField(practice, "deals", prefs.practice.deals);
  setField(practice, "level", prefs.practice.level);
  setField(practice, "speed", prefs.practice.speed);
  const create = /** @type {HTMLFormElement} */ ($("create-form"));
  setField(create, "deals", prefs.create.deals);
  setField(create, "public", prefs.create.public ? 1 : 0);
}

const LEVELS = ["easy", "normal", "strong"];
const SPEEDS = ["instant", "fast", "normal", "slow"];

function wire() {
  const lang = /** @type {HTMLSelectElement} */ ($("lang"));
  for (const l of LANGS) {
    const o = document.createElement("option");
    o.value = l;
    o.textContent = LANG_NAMES[l];
    lang.append(o);
  }
  lang.value = ui.lang;
  lang.addEventListener("change", () => {
    ui.lang = /** @type {Lang} */ (lang.value);
    prefs.lang = ui.lang;
    savePrefs();
    applyLanguage();
  });
  const counter = input("counter-toggle");
  counter.checked = prefs.counter;
  counter.addEventListener("change", () => {
    prefs.counter = counter.checked;
    savePrefs();
    renderNow();
  });
  $("name-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const name = cleanName(input("name").value);
    input("name").value = name;
    const changed = name !== prefs.name;
    prefs.name = name;
    prefs.named = true;
    savePrefs();
    if (changed && state.room === null) {
      conn.restart(); // a name belongs to a session: a new one
      toast(ui.t("name_saved"));
    } else if (ui.pending) enterPending();
    scheduleRender();
  });
  $("join-prompt-btn").addEventListener("click", () => {
    const name = cleanName(input("name").value);
    if (name !== prefs.name) {
      prefs.name = name;
      prefs.named = true;
      savePrefs();
      conn.restart(); // the link is acted on after the new hello
      return;
    }
    prefs.named = true;
    savePrefs();
    enterPending();
  });
  $("practice-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const form = /** @type {HTMLFormElement} */ (e.currentTarget);
    const deals = radio(form, "deals");
    const level = String(/** @type {HTMLSelectElement} */ (form.elements.namedItem("level")).value);
    const speed = String(/** @type {HTMLSelectElement} */ (form.elements.namedItem("speed")).value);
    if (![1, 3, 6, 9].includes(deals) || !LEVELS.includes(level) || !SPEEDS.includes(speed)) return;
    prefs.practice = { deals, level, speed };
    savePrefs();
    send({ type: "start_practice", deals, level, speed });
  });
  $("create-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const form = /** @type {HTMLFormElement} */ (e.currentTarget);
    const deals = radio(form, "deals");
    const pub = /** @type {HTMLInputElement} */ (form.elements.namedItem("public")).checked;
    if (![3, 6, 9].includes(deals)) return;
    prefs.create = { deals, public: pub };
    savePrefs();
    send({ type: "create_room", deals, public: pub });
  });
  const code = () => input("code").value.trim().toUpperCase();
  $("code-form").addEventListener("submit", (e) => {
    e.preventDefault();
    if (CODE_RE.test(code())) send({ type: "join_room", code: code() });
  });
  $("watch-btn").addEventListener("click", () => {
    if (CODE_RE.test(code())) send({ type: "watch", code: code() });
    else input("code").reportValidity();
  });
  input("code").addEventListener("input", () => {
    const el = input("code");
    const clean = el.value.replace(/[^A-Za-z0-9-]/g, "").toUpperCase().slice(0, 24);
    if (clean !== el.value) el.value = clean;
  });
  $("rooms").addEventListener("click", (e) => {
    const b = /** @type {HTMLElement} */ (e.target).closest("button");
    if (b?.dataset.code) send({ type: "watch", code: b.dataset.code });
  });
  $("quick-start").addEventListener("click", () => send({ type: "quick_match" }));
  $("quick-cancel").addEventListener("click", () => send({ type: "leave_queue" }));
  // the waiting room
  $("copy-code").addEventListener("click", (e) => copy(state.room?.code ?? "", e.currentTarget));
  $("copy-link").addEventListener("click", (e) =>
    copy(`${location.origin}/#/join/${state.room?.code ?? ""}`, e.currentTarget),
  );
  $("seat-bot").addEventListener("click", () => {
    const level = /** @type {HTMLSelectElement} */ ($("bot-level")).value;
    if (LEVELS.includes(level)) send({ type: "seat_bot", level });
  });
  $("wait-ready").addEventListener("click", () => send({ type: "ready" }, true));
  $("summary-ready").addEventListener("click", () => send({ type: "ready" }, true));
  // the table
  for (const b of [0, 1, 2, 3]) {
    $(`bid-${b}`).addEventListener("click", () => {
      const turn = myTurn(state);
      if (!turn || turn.action !== "bid") return;
      if (b === 0) send({ type: "pass", version: turn.version }, true);
      else if (legalBids(state).includes(b)) send({ type: "bid", value: b, version: turn.version }, true);
    });
  }
  $("play").addEventListener("click", () => {
    const turn = myTurn(state);
    const v = verdict(state, hand.selected);
    if (!turn || v.level !== "ok") return;
    const ranks = [...hand.selected].map(cardRank).sort((a, b) => a - b);
    if (send({ type: "play", ranks, version: turn.version }, true)) hand.clear();
  });
  $("pass").addEventListener("click", () => {
    const turn = myTurn(state);
    if (!turn || !turn.may_pass) return;
    if (send({ type: "pass", version: turn.version }, true)) hand.clear();
  });
  $("hint").addEventListener("click", () => {
    const turn = myTurn(state);
    if (!turn) return;
    const options = hintOptions(state);
    if (!options.length) return;
    const key = `${turn.version}:${state.room.table.hand.join(",")}`;
    ui.hintIndex = key === ui.hintKey ? (ui.hintIndex + 1) % options.length : 0;
    ui.hintKey = key;
    const option = options[ui.hintIndex];
    if (option === null) {
      hand.pick([]);
      ui.hintPass = true; // after pick: a pick clears it
    } else {
      hand.pick(cardsFor(state.room.table.hand, option.cards));
      ui.hintPass = false;
    }
    renderNow();
  });
  $("resume").addEventListener("click", () => send({ type: "resume" }));
  $("speed").addEventListener("change", () => {
    const speed = /** @type {HTMLSelectElement} */ ($("speed")).value;
    if (SPEEDS.includes(speed)) send({ type: "set_bot_speed", speed });
  });
  $("leave").addEventListener("click", () => {
    const table = state.room?.table;
    const inPlay = table && mySeat(state) !== null && table.phase !== "over";
    if (inPlay && !ui.leaveArmed) {
      ui.leaveArmed = true;
      setTimeout(() => {
        ui.leaveArmed = false;
        scheduleRender();
      }, 4000);
      scheduleRender();
      return;
    }
    ui.leaveArmed = false;
    send({ type: "leave" });
  });
  // after the match: again with the same seats, its replay, or the lobby
  $("again").addEventListener("click", () => {
    const code = state.room?.code;
    if (code && state.closed === "match_over") send({ type: "rematch", code }, true);
  });
  $("result-replay").addEventListener("click", () => {
    if (state.room?.code) send({ type: "get_replay", code: state.room.code });
  });
  $("to-lobby").addEventListener("click", () => {
    const mode = state.room?.mode;
    dispatch({ type: "_lobby" });
    restoreForms();
    requestAnimationFrame(() => {
      const target = mode === "practice" ? "practice-start" : mode === "private" ? "create-start" : "quick-start";
      button(target).focus();
    });
  });
  $("rematch-accept").addEventListener("click", () => {
    const r = state.rematch;
    if (!r) return;
    send({ type: "rematch", code: r.code }, true);
  });
  $("rematch-dismiss").addEventListener("click", () => dispatch({ type: "_rematch_dismissed" }));
  $("history").addEventListener("click", (e) => {
    const b = /** @type {HTMLElement} */ (e.target).closest("button");
    if (b?.dataset.replay) send({ type: "get_replay", code: b.dataset.replay });
  });
  // the replay viewer: buttons and keys
  $("replay-close").addEventListener("click", closeReplay);
  $("replay-first").addEventListener("click", () => replayMove({ step: "first" }));
  $("replay-prev").addEventListener("click", () => replayMove({ step: -1 }));
  $("replay-next").addEventListener("click", () => replayMove({ step: 1 }));
  $("replay-last").addEventListener("click", () => replayMove({ step: "last" }));
  $("replay-deal-prev").addEventListener("click", () => replayMove({ deal: -1 }));
  $("replay-deal-next").addEventListener("click", () => replayMove({ deal: 1 }));
  $("replay").addEventListener("keydown", (e) => {
    /** @type {Record<string, Parameters<typeof replayMove>[0]>} */
    const keys = {
      ArrowRight: { step: 1 },
      ArrowLeft: { step: -1 },
      Home: { step: "first" },
      End: { step: "last" },
      ArrowDown: { deal: 1 },
      PageDown: { deal: 1 },
      ArrowUp: { deal: -1 },
      PageUp: { deal: -1 },
    };
    if (e.key === "Escape") closeReplay();
    else if (keys[e.key]) replayMove(keys[e.key]);
    else return;
    e.preventDefault();
  });
  // quick chat, its mute, and auto-pass
  $("chat-open").addEventListener("click", () => {
    const panel = $("chat-panel");
    panel.hidden = !panel.hidden;
    renderNow();
    if (!panel.hidden) /** @type {HTMLElement | null} */ (panel.querySelector("button[data-phrase]"))?.focus();
  });
  $("chat-close").addEventListener("click", () => closeChat());
  $("chat-panel").addEventListener("keydown", (e) => {
    if (e.key === "Escape") closeChat();
  });
  $("chat-panel").addEventListener("click", (e) => {
    const b = /** @type {HTMLElement} */ (e.target).closest("button");
    if (!b?.dataset.phrase) return;
    const id = conn.send({ type: "chat", phrase: b.dataset.phrase });
    if (id !== null) ui.chatRequest = id;
    closeChat();
  });
  const mute = input("mute-toggle");
  mute.checked = prefs.mute;
  mute.addEventListener("change", () => {
    prefs.mute = mute.checked;
    savePrefs();
    renderNow();
  });
  const auto = input("autopass-toggle");
  auto.checked = prefs.autoPass;
  auto.addEventListener("change", () => {
    prefs.autoPass = auto.checked;
    savePrefs();
    autoPass();
    renderNow();
  });
  $("retry").addEventListener("click", () => conn.retryNow());
  $("reload").addEventListener("click", () => location.reload());
  window.addEventListener("online", () => conn.retryNow());
  window.addEventListener("hashchange", () => {
    readLink();
    if (state.conn === "open" && !state.room) actOnLink();
    scheduleRender();
  });
  setInterval(tick, 250);
  setInterval(() => {
    if (!state.room && state.conn === "open" && !document.hidden) listRooms();
  }, 5000);
}

function closeChat() {
  $("chat-panel").hidden = true;
  renderNow();
  button("chat-open").focus();
}

/** The chat panel's buttons, in the page's language: the phrases, then the emotes. */
function fillChat() {
  const t = ui.t;
  $("chat-phrases").replaceChildren(
    ...PHRASES.map((p) => {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.phrase = p;
      b.textContent = t(`phrase_${p}`);
      return b;
    }),
  );
  $("chat-emotes").replaceChildren(
    ...Object.entries(EMOTES).map(([p, face]) => {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.phrase = p;
      b.textContent = face;
      b.setAttribute("aria-label", t(`phrase_${p}`));
      b.title = t(`phrase_${p}`);
      return b;
    }),
  );
}

function listRooms() {
  if (!state.room) conn.send({ type: "list_rooms" });
}

/** @param {string} text @param {EventTarget | null} target */
function copy(text, target) {
  const b = /** @type {HTMLButtonElement} */ (target);
  const done = () => {
    b.textContent = ui.t("copied");
    setTimeout(() => {
      b.textContent = ui.t("copy");
    }, 2000);
  };
  const fallback = () => {
    const area = document.createElement("textarea");
    area.value = text;
    document.body.append(area);
    area.select();
    try {
      document.execCommand("copy");
      done();
    } finally {
      area.remove();
    }
  };
  if (navigator.clipboard?.writeText) navigator.clipboard.writeText(text).then(done, fallback);
  else fallback();
}

// --- start ------------------------------------------------------------------------------

readLink();
wire();
restoreForms();
applyLanguage();
render();
conn.start();
// for tests and the curious: the page's state, read only
Object.defineProperty(window, "ddz", {
  value: Object.freeze({ state: () => state, usableAt: () => ui.usableAt }),
});
