// @ts-check
// The leaderboard sheet (the top 100 by rating, my own place even below them), a rating in
// words, and a rated quick match's change on the result sheet. A rating is a skill estimate
// from quick matches (openskill: `mu` the skill, `sigma` its uncertainty, `rating` = mu - 3
// sigma what ranks), never points carried over from a match.

import { showDialog, trapFocus } from "./dialogs.js";
import { $, button, make } from "./dom.js";
import { langTag } from "./i18n.js";
import { scheduleRender, send, state, ui } from "./page.js";
import { nameOf } from "./text.js";

/** @typedef {{rating: number, mu: number, sigma: number, matches: number}} RatingView */
/** @typedef {{rank: number | null, name: string, rating: RatingView}} LadderLine */

/** A rating's number as the page's language writes it, one decimal: 18.4, 18,4. */
export function num(/** @type {number} */ n) {
  return new Intl.NumberFormat(langTag(ui.lang), { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(n);
}

/** "18.4 (skill 25.3 ± 2.3)" */
export function ratingText(/** @type {RatingView} */ r) {
  return ui.t("rating_value", { rating: num(r.rating), mu: num(r.mu), sigma: num(r.sigma) });
}

export function openLadder() {
  ui.sheet = "ladder";
  send({ type: "get_leaderboard" });
  $("ladder-body").scrollTop = 0;
  scheduleRender();
}

function closeLadder() {
  ui.sheet = null;
  scheduleRender();
}

/** What the ladder sheet was last drawn from: drawn again only when it changes (a tab
 * through its rows keeps its place). */
let drawn = { ladder: /** @type {any} */ (null), lang: "" };

export function renderLadder() {
  const open = ui.sheet === "ladder" && state.conn === "open";
  showDialog($("ladder"), open);
  if (!open) {
    if (drawn.ladder) {
      $("ladder-rows").replaceChildren();
      drawn = { ladder: null, lang: "" };
    }
    return;
  }
  const data = state.ladder;
  $("ladder-loading").hidden = data !== null;
  if (data === drawn.ladder && ui.lang === drawn.lang) return;
  drawn = { ladder: data, lang: ui.lang };
  const t = ui.t;
  if (!data) {
    $("ladder-you").textContent = "";
    $("ladder-rules").textContent = "";
    $("ladder-rows").replaceChildren();
    return;
  }
  /** @type {LadderLine | null} */
  const you = data.you;
  $("ladder-you").textContent =
    you === null
      ? t("ladder_you_none")
      : you.rank === null
        ? t("ladder_you_unranked", { n: you.rating.matches, min: data.min_matches })
        : t("ladder_you", { rank: you.rank, ranked: data.ranked });
  $("ladder-rules").textContent = t("ladder_rules", { ranked: data.ranked, min: data.min_matches });
  /** @type {HTMLTableRowElement[]} */
  const rows = data.top.map((/** @type {LadderLine} */ line) => {
    const mine = you !== null && you.rank !== null && line.rank === you.rank;
    return ladderRow(line, mine);
  });
  const top = /** @type {LadderLine[]} */ (data.top);
  if (you !== null && you.rank !== null && !top.some((l) => l.rank === you.rank)) {
    // my place below the top: after a gap, my own line
    const gap = make("tr", "gap");
    const cell = make("td", "", "⋮");
    cell.colSpan = 4;
    gap.append(cell);
    rows.push(gap, ladderRow(you, true));
  }
  if (!rows.length) {
    const empty = make("tr");
    const cell = make("td", "help", t("ladder_empty"));
    cell.colSpan = 4;
    empty.append(cell);
    rows.push(empty);
  }
  $("ladder-rows").replaceChildren(...rows);
}

/**
 * One line of the ladder: place, name, rating ± uncertainty, rated matches.
 * @param {LadderLine} line
 * @param {boolean} mine
 */
function ladderRow(line, mine) {
  const t = ui.t;
  const tr = make("tr", mine ? "me" : "");
  if (mine) tr.setAttribute("aria-current", "true");
  const rank = make("th", "rank", line.rank === null ? "–" : String(line.rank));
  rank.scope = "row";
  const name = make("td", "name", nameOf(line.name));
  if (mine) name.append(make("span", "you-tag", t("you_tag")));
  const rating = make("td", "rating");
  rating.append(make("strong", "", num(line.rating.rating)), " ", make("span", "sigma", `± ${num(line.rating.sigma)}`));
  rating.title = ratingText(line.rating);
  const matches = make("td", "matches", String(line.rating.matches));
  tr.append(rank, name, rating, matches);
  return tr;
}

/** A rated quick match's change, on its result sheet: "Rating 3.2 → 4.0 (+0.8)". */
export function renderRatingChange() {
  const el = $("result-rating");
  const change = state.ratingChange;
  const show = change !== null && state.room !== null && change.code === state.room.code && state.result !== null;
  el.hidden = !show;
  if (!show || !change) return;
  const delta = change.after.rating - change.before.rating;
  const text = ui.t("rating_change", {
    before: num(change.before.rating),
    after: num(change.after.rating),
    delta: `${delta >= 0 ? "+" : "−"}${num(Math.abs(delta))}`,
    mu_before: num(change.before.mu),
    mu_after: num(change.after.mu),
  });
  if (el.textContent !== text) el.textContent = text;
  el.className = `rating-change ${delta >= 0 ? "up" : "down"}`;
}

export function wireLadder() {
  const sheet = $("ladder");
  trapFocus(sheet);
  sheet.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    e.preventDefault();
    closeLadder();
  });
  $("ladder-close").addEventListener("click", closeLadder);
  $("ladder-open").addEventListener("click", openLadder);
  button("ladder-open").setAttribute("aria-controls", "ladder");
}
