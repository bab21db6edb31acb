// @ts-check
// The leaderboard sheet (the top 100 by rating, my own place even below them; a player's
// public card opened from their line), a rating in words and as a small graph, and a rated
// match's change on the result sheet. A rating is a skill estimate (openskill: `mu` the
// skill, `sigma` its uncertainty), shown as `points` on a familiar scale (1500 to start,
// "1500?" while provisional) with its tier (段位), by which the ladder ranks.
// Never points carried over from a match.

import { showDialog, trapFocus } from "./dialogs.js";
import { $, button, make } from "./dom.js";
import { langTag } from "./i18n.js";
import { scheduleRender, send, state, ui } from "./page.js";
import { nameOf } from "./text.js";

/** @typedef {{points: number, provisional: boolean, tier: string, rating: number, mu: number, sigma: number, matches: number}} RatingView */
/** @typedef {{rank: number | null, name: string, rating: RatingView, tag?: string}} LadderLine */

/** A rating's number as the page's language writes it, one decimal: 18.4, 18,4. */
export function num(/** @type {number} */ n) {
  return new Intl.NumberFormat(langTag(ui.lang), { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(n);
}

/** "1562", or "1500?" while provisional. */
export function shown(/** @type {RatingView} */ r) {
  return `${r.points}${r.provisional ? "?" : ""}`;
}

/** A tier's name in the page's language (Gold, 黄金). */
export function tierName(/** @type {string} */ tier) {
  return ui.t(`tier_${tier}`);
}

/** "1562 · Gold (skill 25.3 ± 2.3)" */
export function ratingText(/** @type {RatingView} */ r) {
  return ui.t("rating_value", { rating: shown(r), tier: tierName(r.tier), mu: num(r.mu), sigma: num(r.sigma) });
}

const SVG = "http://www.w3.org/2000/svg";

/**
 * A rating's history as a small line graph (the shown points after each rated match, the
 * oldest first), with its first and last values; empty for fewer than two.
 * @param {HTMLElement} box
 * @param {number[]} points
 */
export function drawTrend(box, points) {
  if (points.length < 2) {
    box.replaceChildren();
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const w = 240;
  const h = 48;
  const low = Math.min(...points);
  const high = Math.max(...points);
  const span = Math.max(high - low, 1);
  const xy = points.map((p, i) => [
    (i * (w - 8)) / (points.length - 1) + 4,
    h - 4 - ((p - low) * (h - 8)) / span,
  ]);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("role", "img");
  const label = ui.t("rating_trend", { n: points.length });
  svg.setAttribute("aria-label", `${label}: ${points[0]} → ${points[points.length - 1]}`);
  const line = document.createElementNS(SVG, "polyline");
  line.setAttribute("points", xy.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" "));
  const last = document.createElementNS(SVG, "circle");
  last.setAttribute("cx", xy[xy.length - 1][0].toFixed(1));
  last.setAttribute("cy", xy[xy.length - 1][1].toFixed(1));
  last.setAttribute("r", "3");
  svg.append(line, last);
  const caption = make("p", "trend-caption", `${label}: ${points[0]} → ${points[points.length - 1]}`);
  box.replaceChildren(svg, caption);
}

/** Open a player's public card (from their line on the ladder). @param {string} tag */
export function openPlayer(tag) {
  ui.playerTag = tag;
  send({ type: "get_public_profile", tag });
  $("ladder-body").scrollTop = 0;
  scheduleRender();
  // the line pressed is hidden with the ladder: the focus goes to the card's way back
  requestAnimationFrame(() => button("player-card-back").focus());
}

export function openLadder() {
  ui.sheet = "ladder";
  send({ type: "get_leaderboard" });
  $("ladder-body").scrollTop = 0;
  scheduleRender();
}

function closeLadder() {
  ui.sheet = null;
  ui.playerTag = null;
  scheduleRender();
}

/** Back from a player's card to the ladder, the focus on their line's button. */
function backToLadder() {
  const tag = ui.playerTag;
  ui.playerTag = null;
  scheduleRender();
  requestAnimationFrame(() => {
    const again = tag ? $("ladder-rows").querySelector(`[data-tag="${CSS.escape(tag)}"]`) : null;
    (again instanceof HTMLElement ? again : $("ladder-sheet")).focus();
  });
}

/** What the card was last drawn from. */
let drawnCard = { profile: /** @type {any} */ (null), lang: "" };

/** A player's public card over the ladder's body, while one is open. */
function renderCard() {
  const tag = ui.playerTag;
  $("player-card").hidden = tag === null;
  $("ladder-main").hidden = tag !== null;
  if (tag === null) return;
  const data = state.publicProfile;
  const current = data !== null && data.tag === tag;
  $("player-card-loading").hidden = current;
  if (!current) {
    $("player-card-h").textContent = "";
    $("player-card-tag").textContent = `#${tag}`;
    for (const id of ["player-card-rating", "player-card-stats"]) $(id).replaceChildren();
    drawTrend($("player-card-trend"), []);
    drawnCard = { profile: null, lang: "" };
    return;
  }
  if (drawnCard.profile === data && drawnCard.lang === ui.lang) return;
  drawnCard = { profile: data, lang: ui.lang };
  const t = ui.t;
  $("player-card-h").textContent = nameOf(data.name);
  $("player-card-tag").textContent = `#${data.tag}`;
  $("player-card-rating").textContent =
    data.rating === null ? t("not_rated") : `${t("rating")}: ${ratingText(data.rating)} · ${t("rated_matches", { n: data.rating.matches })}`;
  drawTrend($("player-card-trend"), data.rating_history);
  /** @type {[string, string][]} */
  const items = [];
  for (const m of data.modes) items.push([t(`mode_${m.mode}`), t("mode_record", { played: m.played, won: m.won })]);
  const side = (/** @type {number} */ won, /** @type {number} */ n) =>
    n ? t("deals_won", { won, n, pct: ` (${Math.round((100 * won) / n)}%)` }) : t("no_deals");
  items.push([t("as_landlord"), side(data.landlord_won, data.landlord_deals)]);
  items.push([t("as_farmer"), side(data.farmer_won, data.farmer_deals)]);
  $("player-card-stats").replaceChildren(
    ...items.map(([term, value]) => {
      const item = make("div", "stat");
      item.append(make("dt", "", term), make("dd", "", value));
      return item;
    }),
  );
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
  renderCard();
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
  const name = make("td", "name");
  if (line.tag) {
    // the name opens the player's public card; the tag tells two of one name apart
    const open = make("button", "player-link", nameOf(line.name));
    open.type = "button";
    open.dataset.tag = line.tag;
    open.addEventListener("click", () => openPlayer(String(line.tag)));
    name.append(open, make("span", "player-tag", `#${line.tag}`));
  } else name.append(nameOf(line.name));
  if (mine) name.append(make("span", "you-tag", t("you_tag")));
  const rating = make("td", "rating");
  rating.append(
    make("strong", "", shown(line.rating)),
    " ",
    make("span", `tier tier-${line.rating.tier}`, tierName(line.rating.tier)),
  );
  rating.title = ratingText(line.rating);
  const matches = make("td", "matches", String(line.rating.matches));
  tr.append(rank, name, rating, matches);
  return tr;
}

/** A rated match's change, on its result sheet: "Rating 1500? → 1562? (+62) · Gold",
 * and a new tier said so. */
export function renderRatingChange() {
  const el = $("result-rating");
  const change = state.ratingChange;
  const show = change !== null && state.room !== null && change.code === state.room.code && state.result !== null;
  el.hidden = !show;
  if (!show || !change) return;
  const delta = change.after.points - change.before.points;
  let text = ui.t("rating_change", {
    before: shown(change.before),
    after: shown(change.after),
    delta: `${delta >= 0 ? "+" : "−"}${Math.abs(delta)}`,
    tier: tierName(change.after.tier),
  });
  if (change.after.tier !== change.before.tier) {
    text += ` · ${ui.t(delta >= 0 ? "tier_up" : "tier_down", { tier: tierName(change.after.tier) })}`;
  }
  if (el.textContent !== text) el.textContent = text;
  el.className = `rating-change ${delta >= 0 ? "up" : "down"}`;
}

export function wireLadder() {
  const sheet = $("ladder");
  trapFocus(sheet);
  sheet.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    e.preventDefault();
    if (ui.playerTag !== null) backToLadder();
    else closeLadder();
  });
  $("ladder-close").addEventListener("click", closeLadder);
  $("player-card-back").addEventListener("click", backToLadder);
  $("ladder-open").addEventListener("click", openLadder);
  button("ladder-open").setAttribute("aria-controls", "ladder");
}
