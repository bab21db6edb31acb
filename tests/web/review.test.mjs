// A review read beside its replay (review.js): which steps are decisions, the landlord's
// chances, the turning points, positions and steps, the moves as ranks.
// Run: node --test tests/web/review.test.mjs (tests/web/test_js_state.py runs it).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  chances, decisionSteps, moveRanks, percent, positionAt, reviewedDeal, stepOf, turningPoints,
} from "../../server/web/static/js/review.js";

const played = (seat) => ({ type: "played", seat, cards: [0], kind: "single" });
const passed = (seat) => ({ type: "passed", seat, trick_over: false });
const deal = {
  deal_no: 2, void: false,
  events: [
    { type: "bid", seat: 0, bid: 3 },
    { type: "landlord", seat: 0, base: 3, kitty: [] },
    played(0), passed(1), { type: "seat_control", seat: 2, bot: true }, played(2), played(0),
  ],
};
const replay = { code: "ABCDE", deals: [{ deal_no: 1, void: true, events: [] }, deal] };
const side = (v) => typeof v === "string";
const decision = (seat, play, before, after, better = []) =>
  ({ seat, play, before, after, exact: side(before) && side(after), better, timeout: false });
const review = {
  code: "ABCDE",
  deals: [{
    deal_no: 2, landlord: 0, winner: "landlord", lost_at: 2, reach: 3,
    decisions: [
      decision(0, "3", null, "farmers"),
      decision(1, null, "farmers", "farmers"),
      decision(2, "5", "farmers", "landlord", ["6", null, "10 10 J"]),
      decision(0, "7", "landlord", "landlord"),
    ],
  }],
};

test("a deal's decisions are its plays and passes, a seat's control changing is none", () => {
  assert.deepEqual(decisionSteps(deal), [2, 3, 5, 6]);
});

test("the review of a replay's deal: by its number; none for a void deal or another match", () => {
  assert.equal(reviewedDeal(review, replay, 1), review.deals[0]);
  assert.equal(reviewedDeal(review, replay, 0), null);
  assert.equal(reviewedDeal({ ...review, code: "OTHER" }, replay, 1), null);
  assert.equal(reviewedDeal(null, replay, 1), null);
  const short = { ...review, deals: [{ ...review.deals[0], decisions: review.deals[0].decisions.slice(1) }] };
  assert.equal(reviewedDeal(short, replay, 1), null); // (not this deal's decisions)
});

test("the landlord's chance at each position: exact 1 or 0, null beyond the reach", () => {
  assert.deepEqual(chances(review.deals[0]).map((c) => c.value), [null, 0, 0, 1, 1]);
  assert.deepEqual(chances(review.deals[0]).map((c) => c.exact), [false, true, true, true, true]);
});

test("a turning point is an exact decision whose side won before and lost after", () => {
  assert.deepEqual(turningPoints(review.deals[0]), [2]);
});

// The same deal reviewed with the strong bot's estimates before the solver's reach.
const estimated = {
  ...review.deals[0],
  lost_at: null,
  reach: 2,
  estimated: 2,
  decisions: [
    decision(0, "3", 0.8125, 0.125),
    decision(1, null, 0.125, "landlord"),
    decision(2, "5", "landlord", "landlord"),
    decision(0, "7", "landlord", "landlord"),
  ],
};

test("before the reach the chance is the estimate, marked not exact", () => {
  assert.deepEqual(chances(estimated).map((c) => c.value), [0.8125, 0.125, 1, 1, 1]);
  assert.deepEqual(chances(estimated).map((c) => c.exact), [false, false, true, true, true]);
  assert.deepEqual([0.8125, 0.125, 0, 1].map(percent), [81, 13, 0, 100]);
});

test("an estimate's fall (81% to 13%, or 13% to an exact win) is no turning point", () => {
  assert.deepEqual(turningPoints(estimated), []);
  const falls = { ...estimated, decisions: [decision(0, "3", 0.9, "farmers"), ...estimated.decisions.slice(1)] };
  assert.deepEqual(turningPoints(falls), []);
});

test("positions and steps: a step shows the decisions made before it; a position its step", () => {
  const steps = decisionSteps(deal);
  assert.deepEqual([0, 2, 3, 4, 5, 6, 7].map((s) => positionAt(steps, s)), [0, 0, 1, 2, 2, 3, 4]);
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => stepOf(steps, i)), [2, 3, 5, 6, 7]);
  for (const i of [0, 1, 2, 3, 4]) assert.equal(positionAt(steps, stepOf(steps, i)), i);
});

test("a move's text as its ranks, the pass as null", () => {
  assert.deepEqual(moveRanks("10 10 J"), [10, 10, 11]);
  assert.deepEqual(moveRanks("SJ BJ"), [16, 17]);
  assert.deepEqual(moveRanks("333 44"), [3, 3, 3, 4, 4]);
  assert.equal(moveRanks(null), null);
});

test("the state keeps a review beside its replay, and drops it with the replay", async () => {
  const { initialState, reduce } = await import("../../server/web/static/js/state.js");
  let s = reduce(initialState(), { type: "replay", ...replay }, 0);
  s = reduce(s, { type: "review", ...review }, 0);
  assert.equal(s.review.code, "ABCDE");
  assert.equal(reduce(s, { type: "replay", ...replay }, 0).review.code, "ABCDE"); // (asked again)
  assert.equal(reduce(s, { type: "replay", ...replay, code: "OTHER" }, 0).review, null);
  assert.equal(reduce(s, { type: "_replay_closed" }, 0).review, null);
});
