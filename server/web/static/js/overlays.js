// @ts-check
// The sheets over the table: a deal's summary between deals, the match's end, and the
// rematch offer.

import { showDialog } from "./dialogs.js";
import { $, button, make } from "./dom.js";
import { showCards } from "./hand.js";
import { popIn } from "./motion.js";
import { state, ui } from "./page.js";
import { renderPuzzle } from "./puzzle_view.js";
import { renderReplay } from "./replay_view.js";
import { mySeat } from "./state.js";
import { rematchText, seatName, signed } from "./text.js";

export function renderOverlays() {
  const t = ui.t;
  const table = state.room?.table;
  const me = mySeat(state);
  const between = !!table && table.phase === "between_deals" && !!table.last_deal;
  if (between) {
    const deal = table.last_deal;
    $("summary-h").textContent = t("summary_title", { n: deal.deal_no });
    const spring = deal.score.spring ? t("spring") : deal.score.anti_spring ? t("anti_spring") : "";
    const mine = me === null ? null : deal.score.scores[me];
    outcome($("summary-banner"), mine, mine !== null && mine > 0, spring, `deal-${deal.deal_no}`);
    fillSummary(deal, $("summary-winner"), $("summary-rows"), $("summary-breakdown"), table);
    const ready = button("summary-ready");
    ready.hidden = me === null;
    ready.disabled = !state.live || (me !== null && table.ready[me]);
  }
  showDialog($("summary"), between, button("summary-ready"));
  if (!between && $("summary-rows").childElementCount) {
    $("summary-rows").replaceChildren(); // a past deal's hands go with its summary
  }
  const over = state.result !== null || (!!table && table.phase === "over" && !!table.winners);
  if (!over && $("result-last").childElementCount) $("result-last").replaceChildren();
  const again = button("again");
  again.hidden = me === null;
  again.disabled = !state.live || state.closed !== "match_over";
  button("result-replay").disabled = !state.live || state.closed === null;
  // a review judges deals played to their end: none when the match ended before its first
  button("result-review").hidden = !(table?.deal_scores?.length);
  button("result-review").disabled = button("result-replay").disabled;
  showDialog($("result"), over, again.hidden || again.disabled ? button("to-lobby") : again);
  renderReplay();
  renderPuzzle();
  renderRematch();
  if (over && table) {
    const winners = state.result?.winners ?? table.winners ?? [];
    const names = winners.map((/** @type {number} */ s) => (s === me ? t("seats_you", { name: seatName(s) }) : seatName(s)));
    $("result-winners").textContent = `★ ${t(winners.length > 1 ? "winners" : "winner")}: ${names.join(", ")}`;
    const totals = state.result?.totals ?? table.totals;
    outcome($("result-banner"), me === null ? null : totals[me], winners.includes(me), "", `match-${state.room.code}`);
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

/**
 * My own outcome, first on a sheet: "You win +6" or "You lose -3", with a spring named
 * beneath; hidden for a watcher. It pops in once per deal (or match).
 * @param {HTMLElement} el
 * @param {number | null} points mine, or null for a watcher
 * @param {boolean} won
 * @param {string} extra
 * @param {string} key what it is the outcome of
 */
function outcome(el, points, won, extra, key) {
  el.hidden = points === null;
  if (points === null) return;
  el.className = `outcome ${won ? "won" : "lost"}`;
  el.textContent = ui.t(won ? "you_win" : "you_lose", { points: signed(points) });
  if (extra) el.append(make("span", "extra", extra));
  if (el.dataset.key !== key) {
    el.dataset.key = key;
    popIn(el);
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
