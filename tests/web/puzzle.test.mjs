// A puzzle attempt as the page folds it (puzzle.js): card ids for open hands, my seats, the
// server's replies applied, the pick's verdict and my move as the server takes it.
// Run: node --test tests/web/puzzle.test.mjs (tests/web/test_js_state.py runs it).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  afterReply, dealIds, leavingCounts, moveRequest, mySeatOnTurn, mySeats, pickVerdict, startAttempt,
} from "../../server/web/static/js/puzzle.js";
import { cardRank } from "../../server/web/static/js/rules.js";

const data = {
  type: "puzzle", puzzle_id: "0123456789ab", side: "farmers", min_plays: 3,
  rating: 1500, your_rating: 1500, daily: false, tried: false, own: false,
  position: { hands: [[5, 5, 17], [3, 3, 9], [5, 16]], turn: 1, to_beat: [4, 4], by: 0 },
};

test("each rank gets its own card: suits in seat order, jokers their ids", () => {
  const ids = dealIds(data.position.hands);
  assert.deepEqual(ids, [[8, 9, 53], [0, 1, 24], [10, 52]]);
  assert.deepEqual(ids.map((h) => h.map(cardRank)), [[5, 5, 17], [3, 3, 9], [5, 16]]);
});

test("the farmers' side plays seats 1 and 2; the play to beat is on the table", () => {
  const a = startAttempt(data);
  assert.deepEqual(mySeats(data), [1, 2]);
  assert.equal(mySeatOnTurn(a), 1);
  assert.deepEqual(a.toBeat?.cards.map(cardRank), [4, 4]);
  assert.equal(new Set([...a.hands.flat(), ...a.toBeat.cards]).size, 10);
});

test("a pick's verdict: not a play, not beating, legal", () => {
  const a = startAttempt(data);
  const [three, three2, nine] = a.hands[1];
  assert.equal(pickVerdict(a, []).key, "your_turn_beat");
  assert.equal(pickVerdict(a, [three, nine]).key, "not_a_play");
  assert.equal(pickVerdict(a, [three, three2]).key, "does_not_beat");
  assert.equal(pickVerdict(a, [nine]).key, "does_not_beat");
  assert.deepEqual(moveRequest(a, []), { type: "puzzle_move", puzzle_id: "0123456789ab", seat: 1, ranks: null, step: 0 });
});

test("a reply: the moves leave their hands, the position and result as the server says", () => {
  let a = startAttempt(data);
  a = afterReply(a, {
    type: "puzzle_reply", puzzle_id: "0123456789ab", step: 1, result: "going",
    moves: [{ seat: 1, ranks: null }, { seat: 2, ranks: null }, { seat: 0, ranks: [17] }],
    position: { hands: [[5, 5], [3, 3, 9], [5, 16]], turn: 1, to_beat: [17], by: 0 },
  });
  assert.deepEqual(a.hands.map((h) => h.map(cardRank)), [[5, 5], [3, 3, 9], [5, 16]]);
  assert.deepEqual(a.toBeat, { seat: 0, cards: [53] });
  assert.equal(a.step, 1);
  assert.equal(a.moves.length, 3);
  a = afterReply(a, {
    type: "puzzle_reply", puzzle_id: "0123456789ab", step: 2, result: "failed", position: null,
    moves: [{ seat: 1, ranks: null }], line: [{ seat: 1, ranks: [9] }],
    rating: { before: 1500, after: 1488, puzzle_before: 1500, puzzle_after: 1512 },
  });
  assert.equal(a.result, "failed");
  assert.equal(mySeatOnTurn(a), null);
  assert.deepEqual(a.line, [{ seat: 1, ranks: [9] }]);
  assert.equal(a.rating.after, 1488);
  assert.equal(afterReply(a, { puzzle_id: "ffffffffffff", moves: [] }), a); // another puzzle's
});

test("a first try says leaving it counts as failed, until it is over; a retry never", () => {
  const first = startAttempt(data);
  assert.equal(leavingCounts(first), true);
  const going = afterReply(first, {
    type: "puzzle_reply", puzzle_id: "0123456789ab", step: 1, result: "going",
    moves: [{ seat: 1, ranks: null }, { seat: 2, ranks: null }, { seat: 0, ranks: [17] }],
    position: { hands: [[5, 5], [3, 3, 9], [5, 16]], turn: 1, to_beat: [17], by: 0 },
  });
  assert.equal(leavingCounts(going), true);
  const over = afterReply(going, {
    type: "puzzle_reply", puzzle_id: "0123456789ab", step: 2, result: "failed", position: null,
    moves: [{ seat: 1, ranks: null }], line: [{ seat: 1, ranks: [9] }],
    rating: { before: 1500, after: 1488, puzzle_before: 1500, puzzle_after: 1512 },
  });
  assert.equal(leavingCounts(over), false);
  assert.equal(leavingCounts(startAttempt({ ...data, tried: true })), false);
});
