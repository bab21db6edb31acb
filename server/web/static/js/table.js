// The table: the three seats (name, role, cards left, points, clock, their part of the
// trick), the kitty, the card counter, my hand, and the buttons and legality line of my turn.

import { bubbleFor } from "./chat.js";
import { $, button } from "./dom.js";
import { showCards } from "./hand.js";
import { kindName } from "./i18n.js";
import { hand, state, ui } from "./page.js";
import { prefs } from "./prefs.js";
import { RANK_TEXT } from "./rules.js";
import { legalBids, mySeat, myTurn, seatOrder, unseen, verdict } from "./state.js";
import { playName, seatName } from "./text.js";

export function renderTable() {
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
export function showSlot(trick, slot, t) {
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
  const bubble = bubbleFor(seat);
  if (bubble) box.append(bubble);
  void pos;
}
