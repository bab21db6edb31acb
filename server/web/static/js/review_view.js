// @ts-check
// The review in the replay viewer (issue 33): asked of the server for the match on screen,
// a wait while the solver works (seconds), a refusal said in its own words; then, for the
// deal shown, a line of the landlord's chances across it (exact where the solver reached,
// the strong bot's estimates before that, dashed and lighter, each saying it is one; a
// hatched span where neither is known), its turning points marked on the line and in the list of
// plays beneath, and for the position the replay shows, whose move it is, what it was
// worth, and at a turning point the moves that would have kept the win, as the mover's
// cards. The server decides who may have a review (those who may replay the match).

import { $, button, make } from "./dom.js";
import { showCards } from "./hand.js";
import { conn, renderNow, scheduleRender, state, ui } from "./page.js";
import { chances, decisionSteps, moveRanks, percent, positionAt, reviewedDeal, stepOf, turningPoints } from "./review.js";
import { cardsFor } from "./state.js";
import { errorText } from "./text.js";

/** @typedef {{[field: string]: any}} Msg */
/** @typedef {import("./replay.js").ReplayFrame} ReplayFrame */

const SVG = "http://www.w3.org/2000/svg";
/** Refusals a review may meet, said as the review's own words (the server's are English). */
const REFUSALS = ["busy", "limit_reached", "no_room", "unavailable", "rate_limited"];

/** @type {{code: string, id: number} | null} the review asked for, not come yet */
let waiting = null;
/** @type {{code: string, text: string} | null} why the last ask brought no review */
let failure = null;
/** the turning point whose mover's hand was last scrolled into sight */
let shownMoment = "";

/** Ask the server for match `code`'s review (once: not while one is coming or here). */
export function askReview(/** @type {string} */ code) {
  if (state.review?.code === code || waiting?.code === code) return;
  const id = conn.send({ type: "get_review", code });
  failure = id === null ? { code, text: ui.t("review_offline") } : null;
  waiting = id === null ? null : { code, id };
  scheduleRender();
}

/** Whether an error answers the review asked for (its words go in the replay, not a toast). */
export function reviewRefused(/** @type {Msg} */ msg) {
  return msg.type === "error" && waiting !== null && msg.request_id === waiting.id;
}

/** The message loop's listener: the review came, was refused, or will not come. */
export function reviewHeard(/** @type {any} */ _before, /** @type {Msg} */ msg) {
  if (msg.type === "review" && waiting?.code === msg.code) waiting = null;
  if (reviewRefused(msg) && waiting) {
    const text = REFUSALS.includes(msg.code) ? ui.t(`review_err_${msg.code}`) : errorText(msg.code, msg.message);
    failure = { code: waiting.code, text };
    waiting = null;
  }
  if ((msg.type === "_closed" || msg.type === "_down") && waiting) {
    failure = { code: waiting.code, text: ui.t("review_dropped") }; // (sent to that connection)
    waiting = null;
  }
}

/** The replay viewer's buttons for the review, and the end sheet's Review. */
export function wireReview() {
  $("review-ask").addEventListener("click", () => {
    if (state.replay) askReview(state.replay.code);
  });
  $("result-review").addEventListener("click", () => {
    const code = state.room?.code;
    if (!code) return;
    if (state.replay?.code !== code) conn.send({ type: "get_replay", code });
    askReview(code);
  });
  $("review-plays").addEventListener("click", (e) => {
    const b = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (e.target).closest("[data-step]"));
    if (b) goTo(Number(b.dataset.step));
  });
  $("review-lost").addEventListener("click", (e) => {
    const b = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (e.target).closest("[data-step]"));
    if (b) goTo(Number(b.dataset.step));
  });
}

/** Show the replay at `step` of its deal. */
function goTo(/** @type {number} */ step) {
  ui.replayStep = step;
  renderNow();
}

/**
 * The review's part of the replay viewer, for deal `index` at the frame shown.
 * @param {Msg} replay
 * @param {number} index
 * @param {ReplayFrame} frame
 * @param {(seat: number) => string} name
 */
export function renderReview(replay, index, frame, name) {
  const t = ui.t;
  const review = state.review?.code === replay.code ? state.review : null;
  const wait = waiting?.code === replay.code;
  const failed = failure !== null && failure.code === replay.code ? failure.text : "";
  const ask = button("review-ask");
  ask.hidden = review !== null || wait;
  ask.textContent = t(failed ? "review_again" : "review_ask");
  ask.disabled = !state.live;
  $("review-wait").hidden = !wait;
  const fail = $("review-failed");
  fail.hidden = !failed || wait;
  fail.textContent = failed;
  const deal = reviewedDeal(review, replay, index);
  const box = $("review-deal");
  const none = $("review-none");
  none.hidden = review === null || deal !== null;
  if (review !== null && deal === null) {
    none.textContent = t(replay.deals[index].void ? "review_void" : "review_unfinished");
  }
  box.hidden = deal === null;
  for (const row of document.querySelectorAll("#replay-seats .replay-seat.turning")) row.classList.remove("turning");
  if (deal === null) {
    if (box.childElementCount && box.dataset.key) clearDeal();
    return;
  }
  const steps = decisionSteps(replay.deals[index]);
  const at = positionAt(steps, frame.step);
  const points = chances(deal);
  const turns = turningPoints(deal);
  const key = `${replay.code}/${index}/${t("pass")}`;
  if (box.dataset.key !== key) {
    box.dataset.key = key;
    fillPlays(deal, steps, turns, name);
    summarize(deal, steps, name);
  }
  drawChart(deal, points, turns, at, steps);
  for (const chip of $("review-plays").querySelectorAll("button")) {
    const current = Number(/** @type {HTMLElement} */ (chip).dataset.i) === at;
    chip.classList.toggle("current", current);
    if (current) chip.setAttribute("aria-current", "step");
    else chip.removeAttribute("aria-current");
  }
  const list = $("review-plays");
  const chip = /** @type {HTMLElement | null} */ (list.querySelector("button.current"));
  if (chip) list.scrollLeft = chip.offsetLeft - (list.clientWidth - chip.offsetWidth) / 2;
  describe(deal, at, frame, name, turns);
}

/** The review's deal part emptied (its hands leave the page with the replay). */
export function clearDeal() {
  const box = $("review-deal");
  delete box.dataset.key;
  for (const id of ["review-chart", "review-summary", "review-lost", "review-plays", "review-note", "review-better"]) {
    $(id).replaceChildren();
  }
}

/**
 * The list of plays: one chip per decision (the landlord's marked ♛), the turning points
 * marked ✗; a chip shows that decision's moment.
 * @param {Msg} deal @param {number[]} steps @param {number[]} turns
 * @param {(seat: number) => string} name
 */
function fillPlays(deal, steps, turns, name) {
  const t = ui.t;
  const chips = deal.decisions.map((/** @type {Msg} */ d, /** @type {number} */ i) => {
    const b = make("button", "chip");
    b.type = "button";
    b.dataset.i = String(i);
    b.dataset.step = String(steps[i]);
    const landlord = d.seat === deal.landlord;
    const turning = turns.includes(i);
    b.classList.toggle("landlord", landlord);
    b.classList.toggle("turning", turning);
    b.classList.toggle("lost-at", i === deal.lost_at);
    const play = d.play ?? t("pass");
    b.textContent = `${turning ? "✗ " : ""}${landlord ? "♛ " : ""}${play}`;
    const said = [`${i + 1}. ${name(d.seat)}: ${play}`];
    if (turning) said.push(t(i === deal.lost_at ? "review_lost_here" : "review_turning"));
    b.setAttribute("aria-label", said.join(" · "));
    return b;
  });
  $("review-plays").replaceChildren(...chips);
  $("review-plays").setAttribute("aria-label", t("review_plays"));
}

/**
 * One line for the deal: how far the solver reached, and where the deal was lost (a button
 * to go there) or that the solved part had no turning point.
 * @param {Msg} deal @param {number[]} steps @param {(seat: number) => string} name
 */
function summarize(deal, steps, name) {
  const t = ui.t;
  const n = deal.decisions.length;
  const estimated = deal.decisions.some((/** @type {Msg} */ d) => typeof d.before === "number");
  $("review-summary").textContent =
    deal.reach >= n
      ? t("review_reach_all", { total: n })
      : t(estimated ? "review_reach_est" : "review_reach", { n: deal.reach, total: n });
  const lost = $("review-lost");
  if (deal.lost_at === null) {
    lost.replaceChildren(make("span", "", t("review_no_turn")));
    return;
  }
  const d = deal.decisions[deal.lost_at];
  const b = make("button", "lost-go");
  b.type = "button";
  b.dataset.step = String(steps[deal.lost_at]);
  b.textContent = `✗ ${t("review_lost_at", { n: deal.lost_at + 1, name: name(d.seat), play: d.play ?? t("pass") })}`;
  lost.replaceChildren(b);
}

/**
 * An SVG element with its attributes.
 * @param {string} tag @param {Record<string, string | number>} attrs
 */
function svg(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/**
 * The line of the landlord's chances: a dot per exact position (at the top: the landlord
 * wins with best play; at the bottom: the farmers); before the solver's reach, the strong
 * bot's estimates at their height, lighter dots joined by a dashed line, each titled as an
 * estimate; the span where nothing is known (a review kept before estimates) hatched; each
 * turning point a red ✗ on its drop, where the deal was lost ringed; the position shown, a
 * bar. A tap on it shows the nearest position.
 * @param {Msg} deal @param {import("./review.js").Chance[]} points @param {number[]} turns
 * @param {number} at @param {number[]} steps
 */
function drawChart(deal, points, turns, at, steps) {
  const t = ui.t;
  const n = points.length - 1;
  const x = (/** @type {number} */ i) => `${n ? 4 + (92 * i) / n : 50}%`;
  const y = (/** @type {number} */ v) => `${78 - 56 * v}%`;
  const root = svg("svg", { class: "review-svg", width: "100%", height: "100%", role: "img" });
  const first = points.findIndex((p) => p.exact);
  const known = points.findIndex((p) => p.value !== null);
  const defs = svg("defs", {});
  const hatch = svg("pattern", { id: "review-hatch", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" });
  hatch.append(svg("rect", { width: 6, height: 6, class: "hatch-bg" }), svg("line", { x1: 0, y1: 0, x2: 0, y2: 6, class: "hatch-line" }));
  defs.append(hatch);
  root.append(defs);
  root.append(svg("line", { x1: "4%", x2: "96%", y1: "22%", y2: "22%", class: "level" }));
  root.append(svg("line", { x1: "4%", x2: "96%", y1: "78%", y2: "78%", class: "level" }));
  if (known !== 0) {
    const end = known < 0 ? n : known;
    root.append(svg("rect", { x: 0, y: "6%", width: x(end), height: "88%", fill: "url(#review-hatch)", class: "unreached" }));
    const label = svg("text", { x: `${(4 + (92 * end) / Math.max(1, n)) / 2}%`, y: "54%", class: "unreached-label", "text-anchor": "middle" });
    label.textContent = t("review_unreached");
    root.append(label);
  }
  for (let i = 0; i < n; i++) {
    const a = points[i];
    const b = points[i + 1];
    if (a.value === null || b.value === null) continue;
    const kind = !a.exact || !b.exact ? "seg est" : turns.includes(i) ? "seg drop" : "seg";
    root.append(svg("line", { x1: x(i), y1: y(a.value), x2: x(i + 1), y2: y(b.value), class: kind }));
  }
  points.forEach((p, i) => {
    if (p.value === null) return;
    if (p.exact) {
      root.append(svg("circle", { cx: x(i), cy: y(p.value), r: 3.5, class: `dot ${p.value ? "ll" : "fm"}` }));
      return;
    }
    const dot = svg("circle", { cx: x(i), cy: y(p.value), r: 2.5, class: "dot est" });
    const title = svg("title", {});
    title.textContent = t("review_estimate_point", { pct: percent(p.value) });
    dot.append(title);
    root.append(dot);
  });
  for (const i of turns) {
    if (i === deal.lost_at) root.append(svg("circle", { cx: x(i), cy: y(/** @type {number} */ (points[i].value)), r: 8, class: "lost-ring" }));
    const mark = svg("text", { x: `${n ? 4 + (92 * (i + 0.5)) / n : 50}%`, y: "55%", class: "turn-mark", "text-anchor": "middle" });
    mark.textContent = "✗";
    root.append(mark);
  }
  root.append(svg("line", { x1: x(at), x2: x(at), y1: "4%", y2: "96%", class: "cursor" }));
  const reached = Math.max(0, n - (first < 0 ? n : first));
  const guessed = points.filter((p) => p.value !== null && !p.exact).length;
  root.setAttribute(
    "aria-label",
    t("review_chart", { n: reached, total: n, turns: turns.length }) + (guessed ? t("review_chart_est", { m: guessed }) : ""),
  );
  root.addEventListener("click", (e) => {
    const r = root.getBoundingClientRect();
    const f = ((e.clientX - r.left) / Math.max(1, r.width)) * 100;
    const i = Math.max(0, Math.min(n, Math.round(((f - 4) / 92) * n)));
    goTo(stepOf(steps, i));
  });
  $("review-chart").replaceChildren(root);
}

/**
 * The position shown, in words: whose move it is and what it is worth with best play; at a
 * turning point, what was played and the moves that would have kept the win, as the
 * mover's cards (their hand is the one shown above).
 * @param {Msg} deal @param {number} at @param {ReplayFrame} frame
 * @param {(seat: number) => string} name @param {number[]} turns
 */
function describe(deal, at, frame, name, turns) {
  const t = ui.t;
  const note = $("review-note");
  const better = $("review-better");
  const n = deal.decisions.length;
  note.className = "review-note";
  if (at >= n) {
    note.textContent = t(deal.winner === "landlord" ? "landlord_wins" : "farmers_win");
    better.replaceChildren();
    return;
  }
  const d = deal.decisions[at];
  const who = name(d.seat);
  const parts = [
    d.before === null
      ? t("review_to_play_unknown", { name: who })
      : typeof d.before === "number"
        ? t("review_to_play_est", { name: who, pct: percent(d.before) })
        : t(d.before === "landlord" ? "review_to_play_ll" : "review_to_play_fm", { name: who }),
  ];
  if (!turns.includes(at)) {
    note.textContent = parts.join(" ");
    better.replaceChildren();
    return;
  }
  note.classList.add("turning");
  const row = document.querySelector(`#replay-seats .replay-seat[data-seat="${d.seat}"]`);
  row?.classList.add("turning");
  const moment = `${$("review-deal").dataset.key}@${at}`;
  if (row && shownMoment !== moment) {
    // the mover's hand in sight (on a phone the seats scroll): once, as the moment comes
    shownMoment = moment;
    const seats = $("replay-seats").getBoundingClientRect();
    const r = row.getBoundingClientRect();
    if (r.top < seats.top || r.bottom > seats.bottom) $("replay-seats").scrollTop += r.top - seats.top - 4;
  }
  const head = at === deal.lost_at ? t("review_lost_here") : t("review_turning");
  parts.unshift(`✗ ${head}:`);
  parts.push(t("review_played", { play: d.play ?? t("pass") }));
  note.textContent = parts.join(" ");
  const hand = frame.hands[d.seat];
  const moves = d.better.map((/** @type {string | null} */ m) => {
    const ranks = moveRanks(m);
    const el = make("span", "better-move");
    if (ranks === null) {
      el.textContent = t("pass");
      el.classList.add("pass");
      return el;
    }
    const cards = make("span", "cards small");
    showCards(cards, cardsFor(hand, ranks), t);
    el.append(cards);
    return el;
  });
  better.replaceChildren(make("span", "label", t("review_better")), ...moves);
}
