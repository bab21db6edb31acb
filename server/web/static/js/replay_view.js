// @ts-check
// The replay viewer: a finished match deal by deal, every hand, step by step, with its
// buttons and keys.

import { $, button } from "./dom.js";
import { showCards } from "./hand.js";
import { dispatch, renderNow, state, ui } from "./page.js";
import { replayFrame, stepCount } from "./replay.js";
import { clearDeal, renderReview } from "./review_view.js";
import { cardRank } from "./rules.js";
import { showSlot } from "./table.js";
import { nameOf, playName, signed, when } from "./text.js";

/** The replay viewer: a finished match deal by deal, every hand, step by step. Its hands
 * leave the page with it (closed, nothing of it stays in the DOM). */
export function renderReplay() {
  const t = ui.t;
  const data = state.replay;
  const box = $("replay");
  if (!data || !data.deals.length) {
    if (!box.hidden) {
      box.hidden = true;
      for (const id of ["replay-seats", "replay-kitty", "replay-step", "replay-info", "replay-deal"]) {
        $(id).replaceChildren();
      }
      clearDeal();
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
  const name = (/** @type {number} */ seat) => (data.seats[seat] ? nameOf(data.seats[seat]) : `${seat + 1}`);
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
  renderReview(data, ui.replayDeal, frame, name);
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
export function replayMove(/** @type {{deal?: number, step?: number | "first" | "last"}} */ move) {
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

export function closeReplay() {
  dispatch({ type: "_replay_closed" });
  renderNow();
  const back = state.result !== null ? button("result-replay") : null;
  back?.focus();
}
