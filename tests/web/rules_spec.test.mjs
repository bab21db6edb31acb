// The rule book's examples (SPEC sections 1, 4, 5 and 10), checked by hand in the browser's
// rules. Run: node --test tests/web/rules_spec.test.mjs (tests/web/test_js_rules.py runs it).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  CardTextError,
  InvalidPlayError,
  Kind,
  Rank,
  beats,
  classify,
  formatCards,
  formatHand,
  legalPlays,
  parseCards,
  parsePlay,
  playText,
} from "../../server/web/static/js/rules.js";

/** The kind and main rank of some card text, or null when it is no play. */
const kindOf = (/** @type {string} */ text) => {
  const play = classify(parseCards(text));
  return play === null ? null : [play.kind, play.rank];
};
const P = parsePlay;
const texts = (/** @type {import("../../server/web/static/js/rules.js").Play[]} */ plays) =>
  plays.map(playText);

test("ranks run 3 .. 10 J Q K A 2 SJ BJ, and card text reads as a person types it", () => {
  assert.deepEqual(parseCards("3-A 2 sj bj"), [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);
  assert.deepEqual(parseCards("10 10 10 J"), parseCards("TTTJ"));
  assert.equal(formatCards(parseCards("j 10 3 10 bj sj 33")), "333 10 10 J SJ BJ");
  assert.equal(formatHand([53, 0, 1, 27, 52]), "♠3 ♥3 ♦9 SJ BJ");
  assert.throws(() => parseCards("33333"), new CardTextError("5 cards of rank 3, but a deck has 4"));
  assert.throws(() => parseCards("1"), CardTextError);
  assert.throws(() => parseCards(""), CardTextError);
});

test("the 14 kinds, each with its main rank (SPEC section 4)", () => {
  assert.deepEqual(kindOf("BJ"), [Kind.SINGLE, Rank.BIG_JOKER]);
  assert.deepEqual(kindOf("22"), [Kind.PAIR, Rank.TWO]);
  assert.deepEqual(kindOf("999"), [Kind.TRIPLE, Rank.NINE]);
  assert.deepEqual(kindOf("999 SJ"), [Kind.TRIPLE_SINGLE, Rank.NINE]);
  assert.deepEqual(kindOf("999 22"), [Kind.TRIPLE_PAIR, Rank.NINE]);
  assert.deepEqual(kindOf("3-7"), [Kind.STRAIGHT, Rank.THREE]);
  assert.deepEqual(kindOf("3-A"), [Kind.STRAIGHT, Rank.THREE]);
  assert.deepEqual(kindOf("QQ KK AA"), [Kind.PAIR_CHAIN, Rank.QUEEN]);
  assert.deepEqual(kindOf("KKK AAA"), [Kind.AIRPLANE, Rank.KING]);
  assert.deepEqual(kindOf("333 444 5 SJ"), [Kind.AIRPLANE_SINGLES, Rank.THREE]);
  assert.deepEqual(kindOf("333 444 555 77 8"), [Kind.AIRPLANE_SINGLES, Rank.THREE]);
  assert.deepEqual(kindOf("333 444 77 22"), [Kind.AIRPLANE_PAIRS, Rank.THREE]);
  assert.deepEqual(kindOf("5555 3 BJ"), [Kind.FOUR_TWO_SINGLES, Rank.FIVE]);
  assert.deepEqual(kindOf("5555 33"), [Kind.FOUR_TWO_SINGLES, Rank.FIVE]);
  assert.deepEqual(kindOf("5555 33 44"), [Kind.FOUR_TWO_PAIRS, Rank.FIVE]);
  assert.deepEqual(kindOf("2222"), [Kind.BOMB, Rank.TWO]);
  assert.deepEqual(kindOf("SJ BJ"), [Kind.ROCKET, Rank.SMALL_JOKER]);
});

test("what is no play: chains with 2 or jokers, both jokers as kickers, split fours", () => {
  for (const text of [
    "J Q K A 2", // straights stop at A
    "3 4 5 6", // four cards are no straight
    "3344", // two pairs are no pair chain
    "KKK AAA 222", // airplanes stop at A
    "333 444 SJ BJ", // both jokers are never kickers together
    "5555 SJ BJ",
    "44445555", // four cards of a rank are never split into kickers
    "333 555", // triples must be consecutive
    "333 44 5", // a triple takes one single or one pair
    "5555 3", // four + one is nothing
  ]) {
    assert.equal(classify(parseCards(text)), null, text);
    assert.throws(() => P(text), InvalidPlayError, text);
  }
  // 333444555666 is only an airplane of four, never three triples + 666
  assert.deepEqual(kindOf("333 444 555 666"), [Kind.AIRPLANE, Rank.THREE]);
});

test("beating: same kind and size, higher main rank; kickers never count (SPEC section 5)", () => {
  assert.ok(beats(P("KKK 3"), P("QQQ BJ")));
  assert.ok(!beats(P("QQQ BJ"), P("KKK 3")));
  assert.ok(beats(P("4-8"), P("3-7")));
  assert.ok(!beats(P("4-9"), P("3-7")), "a longer straight is another size");
  assert.ok(beats(P("444 555 3 3"), P("333 444 K A")), "airplane with wings, kickers aside");
  assert.ok(!beats(P("444 555 66 77"), P("333 444 K A")), "wings of pairs are another kind");
  assert.ok(!beats(P("2"), P("SJ")));
  assert.ok(beats(P("BJ"), P("SJ")));
});

test("bombs beat anything but a higher bomb and the rocket; the rocket beats everything", () => {
  const bomb3 = P("3333");
  for (const text of ["BJ", "22", "3-A", "333 444 555 666 777 8 9 10 J Q", "AAAA 22 KK"]) {
    assert.ok(beats(bomb3, P(text)), text);
    assert.ok(beats(P("SJ BJ"), P(text)), text);
  }
  assert.ok(beats(P("4444"), bomb3));
  assert.ok(!beats(bomb3, P("4444")));
  assert.ok(!beats(P("2222"), P("SJ BJ")));
  assert.ok(beats(P("SJ BJ"), P("2222")));
  // four + two are ordinary kinds: no bomb, and they beat only their own kind and size
  assert.ok(!beats(P("2222 3 4"), P("5")));
  assert.ok(beats(P("3333"), P("2222 3 4")));
});

test("hints: smallest first, then bombs from the smallest, then the rocket (SPEC 10)", () => {
  const hand = parseCards("3 55 8 9 10 J Q KKKK 2222 SJ BJ");
  assert.deepEqual(texts(legalPlays(hand, P("4"))), [
    "5", "8", "9", "10", "J", "Q", "K", "2", "SJ", "BJ", "KKKK", "2222", "SJ BJ",
  ]);
  assert.deepEqual(texts(legalPlays(hand, P("QQQQ"))), ["KKKK", "2222", "SJ BJ"]);
  assert.deepEqual(legalPlays(hand, P("SJ BJ")), []);
  assert.deepEqual(texts(legalPlays(parseCards("333 444 555 6 7 9"), P("333 444 8 9"))), [
    // two single kickers may be a pair: the 33 left of 333 (sorted by their cards)
    "33 444 555", "3 444 555 6", "3 444 555 7", "3 444 555 9",
    "444 555 6 7", "444 555 6 9", "444 555 7 9",
  ]);
  // the landlord's 20 cards of tests/protocol/test_enumeration.py lead 243 ways
  assert.equal(legalPlays(parseCards("333 444 555 6 7 8 9 JJ 2222 BJ")).length, 243);
});
