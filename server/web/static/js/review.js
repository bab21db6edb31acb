// @ts-check
// A finished match's review (the server's `review` message, ReviewData) read beside its
// replay (replay.js): which replay steps are a deal's decisions (its plays and passes, in
// the order the review judges them), the landlord's chance at each position of the deal
// (exact where the solver reached, the strong bot's estimate before that), the turning
// points, and the moves that would have kept a win, as the mover's cards.
// No DOM: node tests drive it.
//
// Positions: position i is the moment before decision i (its seat to play), position n
// (n decisions) the deal's end. The replay shows position i at the step of decision i's
// event (the events before it played out).

import { parseCards } from "./rules.js";

/**
 * @typedef {{[field: string]: any}} Msg
 * @typedef {{value: number | null, exact: boolean}} Chance  a position's chance for the
 *   landlord: 1 won, 0 lost with best play (exact); before the solver's reach the strong
 *   bot's estimate, from 0 to 1 (not exact); null unknown (a review kept before estimates)
 */

/**
 * The event indexes of a replay deal's decisions (plays and passes), in order.
 * @param {Msg} deal a ReplayDeal
 * @returns {number[]}
 */
export function decisionSteps(deal) {
  /** @type {number[]} */
  const steps = [];
  deal.events.forEach((/** @type {Msg} */ ev, /** @type {number} */ i) => {
    if (ev.type === "played" || ev.type === "passed") steps.push(i);
  });
  return steps;
}

/**
 * The review of deal number `index` of a replay, or null: a review of another match, a void
 * deal, one not played to its end (the review judges only finished deals), or a review
 * whose decisions are not this deal's.
 * @param {Msg | null} review
 * @param {Msg | null} replay
 * @param {number} index
 * @returns {Msg | null}
 */
export function reviewedDeal(review, replay, index) {
  if (!review || !replay || review.code !== replay.code) return null;
  const deal = replay.deals[index];
  if (!deal || deal.void) return null;
  const found = review.deals.find((/** @type {Msg} */ d) => d.deal_no === deal.deal_no);
  if (!found || found.decisions.length !== decisionSteps(deal).length) return null;
  return found;
}

/**
 * The landlord's chance at each of a reviewed deal's positions (n + 1 of them).
 * @param {Msg} deal a ReviewDeal
 * @returns {Chance[]}
 */
export function chances(deal) {
  /** @type {Msg[]} */
  const decisions = deal.decisions;
  /** @type {(string | number | null)[]} */
  const values = decisions.map((d) => d.before);
  values.push(decisions.length ? decisions[decisions.length - 1].after : deal.winner);
  return values.map((v) => {
    if (typeof v === "number") return { value: Math.min(1, Math.max(0, v)), exact: false };
    return { value: v === null ? null : v === "landlord" ? 1 : 0, exact: v !== null };
  });
}

/**
 * An estimated chance as a whole percentage (0.625: 63).
 * @param {number} value
 */
export function percent(value) {
  return Math.round(100 * value);
}

/**
 * The decisions that threw their side's win away (indexes), the first being where the
 * deal was lost: exact on both sides only, never read from estimates.
 * @param {Msg} deal a ReviewDeal
 * @returns {number[]}
 */
export function turningPoints(deal) {
  /** @type {number[]} */
  const out = [];
  deal.decisions.forEach((/** @type {Msg} */ d, /** @type {number} */ i) => {
    if (d.exact && d.before !== d.after) out.push(i);
  });
  return out;
}

/**
 * The position a replay step shows: how many decisions were made before it.
 * @param {number[]} steps decisionSteps
 * @param {number} step
 */
export function positionAt(steps, step) {
  let n = 0;
  while (n < steps.length && steps[n] < step) n += 1;
  return n;
}

/**
 * The replay step that shows position `i`: decision i's own step (before it is made), or
 * the step after the last decision for the end.
 * @param {number[]} steps decisionSteps
 * @param {number} i
 */
export function stepOf(steps, i) {
  if (!steps.length) return 0;
  return i < steps.length ? steps[i] : steps[steps.length - 1] + 1;
}

/**
 * A move of the review (text as the server writes it: "8 8", "10 10 J"; null: the pass) as
 * the ranks it plays, or null for the pass.
 * @param {string | null} text
 * @returns {number[] | null}
 */
export function moveRanks(text) {
  return text === null ? null : parseCards(text);
}
