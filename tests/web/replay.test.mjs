// The replay viewer's frames (replay.js): what the table looked like after each step of a
// finished deal. Run: node --test tests/web/replay.test.mjs (tests/web/test_js_state.py runs it).
import assert from "node:assert/strict";
import { test } from "node:test";
import { replayFrame, stepCount } from "../../server/web/static/js/replay.js";

// card ids: rank r (3..15), suit s -> (r - 3) * 4 + s
const id = (rank, suit = 0) => (rank - 3) * 4 + suit;

const deal = {
  deal_no: 1, void: false, first_bidder: 0, forced_bid: false,
  hands: [[id(9), id(3), id(4)], [id(5), id(6)], [id(7), id(8)]],
  kitty: [id(10), id(11), id(12)],
  events: [
    { type: "bid", seat: 0, bid: 3, highest: 3, version: 1 },
    { type: "landlord", seat: 0, base: 3, kitty: [id(10), id(11), id(12)], card_counts: [6, 2, 2] },
    { type: "played", seat: 0, cards: [id(3)], kind: "single", rank: 3, card_counts: [5, 2, 2], multiplier: 1, version: 2 },
    { type: "passed", seat: 1, trick_over: false, leader: null, version: 3 },
    { type: "played", seat: 2, cards: [id(7)], kind: "single", rank: 7, card_counts: [5, 2, 1], multiplier: 1, version: 4 },
    { type: "passed", seat: 0, trick_over: false, leader: null, version: 5 },
    { type: "passed", seat: 1, trick_over: true, leader: 2, version: 6 },
    { type: "played", seat: 2, cards: [id(8)], kind: "single", rank: 8, card_counts: [5, 2, 0], multiplier: 1, version: 7 },
  ],
  end: { type: "deal_end", deal_no: 1 },
};
const replay = { code: "ABCDE", deals: [deal] };

test("step 0 is the deal as dealt: every hand sorted, nothing bid or played", () => {
  const frame = replayFrame(replay, 0, 0);
  assert.deepEqual(frame.hands[0], [id(3), id(4), id(9)]);
  assert.deepEqual(frame.bids, [null, null, null]);
  assert.equal(frame.landlord, null);
  assert.equal(frame.last, null);
  assert.equal(frame.end, null);
});

test("the landlord takes the kitty into their hand", () => {
  const frame = replayFrame(replay, 0, 2);
  assert.equal(frame.landlord, 0);
  assert.equal(frame.base, 3);
  assert.deepEqual(frame.hands[0], [id(3), id(4), id(9), id(10), id(11), id(12)]);
});

test("a play leaves its hand; the trick shows each seat's last act until a new trick starts", () => {
  let frame = replayFrame(replay, 0, 7);
  assert.deepEqual(frame.trick, ["pass", "pass", { cards: [id(7)], kind: "single" }]);
  assert.deepEqual(frame.hands[2], [id(8)]);
  frame = replayFrame(replay, 0, 8);  // the leader of the new trick plays: the old one is gone
  assert.deepEqual(frame.trick, [null, null, { cards: [id(8)], kind: "single" }]);
  assert.deepEqual(frame.hands[2], []);
});

test("steps are clamped, and the deal's end is shown at the last step only", () => {
  assert.equal(stepCount(deal), 8);
  assert.equal(replayFrame(replay, 0, -5).step, 0);
  assert.equal(replayFrame(replay, 0, 99).step, 8);
  assert.equal(replayFrame(replay, 0, 7).end, null);
  assert.deepEqual(replayFrame(replay, 0, 8).end, deal.end);
});
