// @ts-check
// The screens: the lobby, the waiting room, the table and the sheets over it, drawn from
// the state in one pass (`render`), and the clocks that count down between passes (`tick`).

import { bubbleLive, fillChat } from "./chat.js";
import { $, button, input } from "./dom.js";
import { afterRender } from "./motion.js";
import { renderLadder, renderRatingChange } from "./ladder.js";
import { historyItem } from "./history_item.js";
import { renderOverlays } from "./overlays.js";
import { dispatch, scheduleRender, state, ui } from "./page.js";
import { renderKeyParts } from "./player_key.js";
import { prefs } from "./prefs.js";
import { renderProfile } from "./profile.js";
import { translator } from "./i18n.js";
import { tickClock } from "./sound.js";
import { mySeat, secondsLeft } from "./state.js";
import { renderTable } from "./table.js";
import { nameOf } from "./text.js";

export function applyLanguage() {
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

/** The whole screen, from the state. */
export function render() {
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
  renderRatingChange();
  renderKeyParts();
  renderProfile();
  renderLadder();
  tick();
  afterRender();
}

function renderStatus() {
  const t = ui.t;
  const box = $("status");
  let text = "";
  if (state.conn === "connecting") text = t("connecting");
  else if (state.conn === "reconnecting") text = t("reconnecting");
  else if (state.conn === "down") text = t("server_down", { s: state.retryIn ?? 1 });
  else if (state.conn === "outdated") text = t("outdated");
  // a code just taken (a link, typed) that no player has was mistyped, not replaced
  else if (state.conn === "refused") text = t(ui.movedIn ? "key_unknown" : "key_refused");
  else if (state.conn === "elsewhere") text = t("playing_elsewhere");
  box.hidden = text === "";
  box.dataset.state = state.conn;
  $("status-text").textContent = text;
  $("retry").hidden = state.conn !== "down";
  $("reload").hidden = state.conn !== "outdated";
  document.body.classList.toggle("stale", !state.live && state.room !== null);
  // the match waits for the server's storage: said above the table, nothing covered
  const paused = $("paused");
  paused.hidden = !state.paused || state.room === null;
  paused.textContent = paused.hidden ? "" : `⏸ ${t("paused_banner")}`;
}

function renderBar() {
  const t = ui.t;
  const room = state.room;
  const bar = $("bar-room");
  bar.replaceChildren();
  const leave = button("leave");
  leave.hidden = room === null || state.result !== null;
  leave.textContent = t("leave");
  leave.classList.toggle("armed", ui.leaveArmed);
  const confirm = $("leave-confirm");
  confirm.hidden = !ui.leaveArmed || leave.hidden;
  confirm.textContent = confirm.hidden ? "" : t("leave_confirm");
  const sound = button("sound-toggle");
  sound.setAttribute("aria-pressed", String(prefs.sound));
  const seated = !!room?.table && mySeat(state) !== null;
  for (const id of ["counter-label", "mute-label", "autopass-label"]) $(id).hidden = !seated;
  if (!seated) $("speed-box").hidden = true;
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
  for (const id of ["practice-start", "quick-start", "create-start", "join-btn", "watch-btn", "profile-open", "ladder-open"]) {
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
    const names = r.seats.map((/** @type {string} */ n) => (n ? nameOf(n) : "—")).join(" · ");
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
  for (const e of entries) list.append(historyItem(e));
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
    let name = seat.kind === "empty" ? t("empty_seat") : nameOf(seat.name ?? "");
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
  // a rated room is for people only: no bot may sit (the server refuses one)
  $("bot-panel").hidden = !creator || !empty || !!room.rated;
  const rated = $("rated-note");
  rated.hidden = !room.rated;
  rated.textContent = room.rated ? `★ ${t("rated_room")}` : "";
  const me = room.your_seat;
  const ready = button("wait-ready");
  ready.hidden = me === null;
  ready.disabled = !state.live || (me !== null && room.seats[me].ready);
  button("seat-bot").disabled = !state.live;
}

/** Clocks that run between renders: the turn countdown, the next deal, the queue. */
export function tick() {
  const t = ui.t;
  const now = performance.now() / 1000;
  const left = secondsLeft(state.countdown, now);
  for (const clock of document.querySelectorAll(".seat .clock")) {
    const el = /** @type {HTMLElement} */ (clock);
    if (el.hidden || left === null) {
      el.textContent = ""; // no clock (practice): no ring
      continue;
    }
    const s = Math.ceil(left);
    const cd = /** @type {NonNullable<typeof state.countdown>} */ (state.countdown);
    const whole = Math.max(1, cd.deadline - cd.serverTime);
    el.textContent = String(s);
    el.setAttribute("aria-label", t("turn_countdown", { s }));
    el.style.setProperty("--frac", String(Math.min(1, left / whole).toFixed(3)));
    el.classList.toggle("urgent", s <= 5);
  }
  tickClock();
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
