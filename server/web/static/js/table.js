// @ts-check
// The table: the three seats (name, role, cards left, points, clock, their part of the
// trick, small and dimmed), the play area in the middle (the play to beat, large, with who
// played it), the kitty, the card counter, my hand, and the buttons and legality line of
// my turn. Parts are rebuilt only when what they show changed (a key per part), so an
// element a motion runs on stays while it runs and a render costs little.

import { bubbleFor } from "./chat.js";
import { $, button, make } from "./dom.js";
import { fitHand } from "./fit.js";
import { showCards, showPlay } from "./hand.js";
import { kindName } from "./i18n.js";
import { hand, state, ui } from "./page.js";
import { prefs } from "./prefs.js";
import { RANK_TEXT, cardRank } from "./rules.js";
import { legalBids, mySeat, myTurn, seatOrder, unseen, verdict } from "./state.js";
import { nameOf, playName, seatName } from "./text.js";

/** @typedef {(key: string, params?: Record<string, string | number>) => string} T */

/** What each part was last drawn from: a part is redrawn only when its key changes. */
const drawn = new Map();

/** Whether `part` must be redrawn for `key` (and remember it). */
function changed(/** @type {string} */ part, /** @type {string} */ key) {
  if (drawn.get(part) === key) return false;
  drawn.set(part, key);
  return true;
}

export function renderTable() {
  const t = ui.t;
  const room = state.room;
  const table = room.table;
  const me = mySeat(state);
  const order = seatOrder(state);
  order.forEach((seat, pos) => renderSeat($(`pos-${pos}`), seat, pos, table));
  renderPlayArea(table);
  renderKitty(table, t);
  const watching = $("watching");
  watching.hidden = me !== null;
  watching.textContent = `◉ ${t("watching")} · ${t("watchers", { n: room.watchers })}`;
  renderCounter(me, t);
  $("table-note").textContent =
    state.voids > 0 && table.phase === "bidding" ? t("void_deal") : "";
  // my hand and what I may do
  const mine = myTurn(state);
  const live = state.live && ui.busy === null;
  const cards = table.hand ?? [];
  $("hand").hidden = me === null;
  hand.set(cards, live && table.phase === "playing" && !table.bot_control[me ?? 0], t);
  fitHand();
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
  // a bot holds my seat; or my clock ran out once (one more and a bot plays)
  const botted = me !== null && table.bot_control[me] && table.phase !== "over";
  $("bot-banner").hidden = !botted;
  const pending = me !== null && (table.resume_pending ?? [])[me];
  $("bot-banner-text").textContent = t(pending ? "resume_pending" : "bot_playing");
  button("resume").hidden = !!pending;
  button("resume").disabled = !state.live;
  const warn = $("timeout-warning");
  warn.hidden = !ui.timedOut || botted || table.phase !== "bidding" && table.phase !== "playing";
  warn.textContent = warn.hidden ? "" : `⏱ ${t("timeout_warning")}`;
  // bot speed in practice
  const speed = /** @type {HTMLSelectElement} */ ($("speed"));
  $("speed-box").hidden = room.mode !== "practice" || me === null;
  if (document.activeElement !== speed) speed.value = room.bot_speed;
  // chat (seats only: the server refuses watchers)
  const chat = button("chat-open");
  chat.hidden = me === null;
  chat.disabled = !state.live;
  if (me === null || !state.live) $("chat-panel").hidden = true;
  chat.setAttribute("aria-expanded", String(!$("chat-panel").hidden));
}

/** The kitty: face down until the landlord takes it, then face up for everyone. */
function renderKitty(/** @type {any} */ table, /** @type {T} */ t) {
  if (!changed("kitty", `${table.kitty ?? "down"}:${ui.lang}`)) return;
  const kitty = $("kitty");
  if (table.kitty) showCards(kitty, table.kitty, t);
  else kitty.replaceChildren(...[0, 1, 2].map(() => backElement()));
  kitty.dataset.down = table.kitty ? "0" : "1";
}

/** The card counter: how many of each rank I have not seen yet. */
function renderCounter(/** @type {number | null} */ me, /** @type {T} */ t) {
  const counter = $("counter");
  counter.hidden = !prefs.counter || me === null;
  if (counter.hidden) return;
  const left = unseen(state);
  if (!changed("counter", `${left.map((r) => r.left).join()}:${ui.lang}`)) return;
  const items = left.map(({ rank, left }) => {
    const li = make("li", left === 0 ? "gone" : "");
    const r = make("span", "r", rank >= 16 ? t(rank === 16 ? "short_small_joker" : "short_big_joker") : RANK_TEXT[rank]);
    li.setAttribute("aria-label", `${rank >= 16 ? t(rank === 16 ? "small_joker" : "big_joker") : t(`rank_${rank}`)}: ${left}`);
    li.append(r, make("span", "n", String(left)));
    return li;
  });
  $("counter-list").replaceChildren(...items);
}

/**
 * The play to beat, large in the middle with who played it (its kind beneath); empty
 * when the seat on turn leads (a new trick, or bidding).
 * @param {any} table
 */
function renderPlayArea(table) {
  const area = $("play-area");
  const lead = table.phase === "playing" && !state.trickOver ? table.last_play : null;
  const key = lead ? `${table.deal_no}:${table.plays.length}:${ui.lang}` : "none";
  if (!changed("play-area", key)) return;
  if (!lead) {
    area.replaceChildren();
    area.removeAttribute("data-seat");
    return;
  }
  const t = ui.t;
  const who = make("div", "lead-who");
  const name = make("span", "name", lead.seat === mySeat(state) ? t("seats_you", { name: seatName(lead.seat) }) : seatName(lead.seat));
  who.append(name);
  if (table.landlord === lead.seat) who.append(make("span", "badge landlord", `♛ ${t("landlord")}`));
  const cards = make("div", "cards lead-cards");
  showPlay(cards, lead.cards, t);
  const kind = make("div", "lead-kind", kindName(t, ui.lang, lead.kind));
  const box = make("div", `lead kind-${lead.kind}`);
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", `${seatName(lead.seat)}: ${playName({ kind: lead.kind, cards: lead.cards.map(cardRank).sort((/** @type {number} */ a, /** @type {number} */ b) => a - b) })}`);
  box.append(who, cards, kind);
  area.dataset.seat = String(lead.seat);
  area.replaceChildren(box);
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
  // a live region: written only when it changes, so a screen reader hears each verdict once
  const said = /** @type {HTMLElement} */ (line.querySelector(".text"));
  if (said.textContent !== text) said.textContent = text;
}

function backElement() {
  const el = make("span", "card back");
  el.setAttribute("aria-hidden", "true");
  return el;
}

/**
 * A seat's last act in the trick, on the table and in the replay: "pass", or its cards
 * and the kind of play (nothing yet: left empty).
 * @param {HTMLElement} trick
 * @param {any} slot
 * @param {T} t
 */
export function showSlot(trick, slot, t) {
  if (slot === "pass") {
    trick.textContent = t("passed");
    trick.classList.add("said");
  } else if (slot) {
    const cards = make("div", "cards small");
    showPlay(cards, slot.cards, t);
    trick.append(cards, make("span", "kind", kindName(t, ui.lang, slot.kind)));
  }
}

/**
 * What a seat shows of the trick: its bid while bidding; else its play or pass, except
 * the play to beat (that one stands in the middle). When the trick is over its cards go;
 * the passes that ended it stay until the next play.
 * @param {any} table
 * @param {number} seat
 */
function slotOf(table, seat) {
  if (table.phase === "bidding") {
    const bid = table.bids.find((/** @type {number[]} */ b) => b[0] === seat);
    return bid ? { bid: bid[1] } : null;
  }
  const slot = state.trick[seat];
  if (slot === "pass") return slot;
  if (!slot || state.trickOver) return null;
  const lead = table.last_play;
  return lead && lead.seat === seat ? null : slot;
}

/**
 * @param {HTMLElement} box
 * @param {number} seat
 * @param {number} pos 0 bottom (me, or seat 0 for a watcher), 1 right, 2 left
 * @param {any} table
 */
function renderSeat(box, seat, pos, table) {
  const t = ui.t;
  const view = state.room.seats[seat];
  const me = mySeat(state);
  const turn = table.turn;
  const onTurn = !!turn && turn.seat === seat && table.phase !== "over";
  const slot = slotOf(table, seat);
  const count = table.card_counts[seat];
  const bubble = bubbleFor(seat);
  const key = JSON.stringify([
    seat, me, view.name, view.kind, view.connected, view.tier, table.landlord, table.bot_control[seat],
    count, table.totals[seat], onTurn, slot, bubble && state.said[seat], ui.lang,
  ]);
  if (!changed(`seat-${pos}`, key)) return;
  box.dataset.seat = String(seat);
  box.classList.toggle("on-turn", onTurn);
  box.classList.toggle("landlord", table.landlord === seat);
  const who = make("div", "who");
  const role = table.landlord === null ? "" : table.landlord === seat ? "♛" : "☘";
  const avatar = make("span", `avatar${table.landlord === seat ? " landlord" : ""}`, role || nameOf(view.name ?? "?").slice(0, 1).toUpperCase());
  avatar.setAttribute("aria-hidden", "true");
  who.append(avatar, make("span", "name", seat === me ? t("seats_you", { name: nameOf(view.name ?? "") }) : nameOf(view.name ?? "")));
  const badge = (/** @type {string} */ cls, /** @type {string} */ text) => who.append(make("span", `badge ${cls}`, text));
  // my role goes on my info line (beside my cards left), not under my name: a phone held
  // sideways has no height for another line there
  const side = table.landlord === null ? null : table.landlord === seat ? "landlord" : "farmer";
  const roleBadge = side === null ? null : make("span", `badge ${side}`, t(side));
  if (roleBadge !== null && seat !== me) who.append(roleBadge);
  if (view.kind === "bot" || table.bot_control[seat]) badge("bot", t("bot"));
  if (view.kind === "person" && !view.connected) badge("offline", t("offline"));
  // an opponent's tier (段位), as a quick match seated them: whom one plays against
  if (view.tier && seat !== me) who.append(make("span", `badge tier tier-${view.tier}`, t(`tier_${view.tier}`)));
  const info = make("div", "info");
  const low = count > 0 && count <= 2;
  const pile = make("span", `pile${low ? " low" : ""}`, low ? `⚠ ${count}` : String(count));
  pile.setAttribute("role", "img");
  pile.setAttribute("aria-label", low ? t("cards_low", { n: count }) : t("cards_left", { n: count }));
  const score = table.totals[seat];
  const total = make("span", "total", `${t("total")} ${score > 0 ? "+" : ""}${score}`);
  const clock = make("span", "clock");
  clock.setAttribute("role", "timer");
  clock.hidden = !onTurn;
  info.append(pile, total, clock);
  if (roleBadge !== null && seat === me) info.append(roleBadge);
  const trick = make("div", "trick");
  if (slot && typeof slot === "object" && "bid" in slot) {
    trick.textContent = slot.bid ? t("bid", { n: slot.bid }) : t("no_bid");
    trick.classList.add("said");
  } else {
    showSlot(trick, slot, t);
  }
  box.replaceChildren(who, info, trick);
  if (bubble) box.append(bubble);
}
