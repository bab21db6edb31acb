// Smart pick (rules.js `smartPick`): a swipe or tap whose cards are not a play that may go
// on the table, but hold one, picks it; and plays written main part first (`mainFirst`).
// Run: node --test tests/web/smart_pick.test.mjs (tests/web/test_js_rules.py runs it).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  Kind,
  mainFirst,
  mainFirstText,
  parseCards,
  parsePlay,
  smartPick,
} from "../../server/web/static/js/rules.js";

/**
 * The play smart pick makes of `picked` (card text), as text, or null.
 * @param {string} picked
 * @param {string | null} table the play to beat, null to lead
 * @param {string} [gesture] the cards the gesture itself picked (all, when not given)
 */
const pick = (picked, table, gesture) => {
  const play = smartPick(
    parseCards(picked),
    table === null ? null : parsePlay(table),
    gesture === undefined ? undefined : parseCards(gesture),
  );
  return play === null ? null : mainFirstText(play);
};

test("a swipe over a straight with a stray card picks the straight (five cards at least)", () => {
  assert.equal(pick("3 44 5 6 7", null), "3 4 5 6 7");
  assert.equal(pick("8 9 10 10 J Q K", null), "8 9 10 J Q K");
  // no straight in it (four ranks): a pair of fours would drop most of it: left alone
  assert.equal(pick("3 44 5 6", null), null);
});

test("a pick that is already a play to lead, or nothing, is left as it is", () => {
  assert.equal(pick("3-7", null), null);
  assert.equal(pick("333 4", null), null);
  assert.equal(smartPick([], null), null);
});

test("cards tapped one by one to build a lead are never taken away", () => {
  // 3 picked, then 5 tapped: single 5 would drop the 3; left alone to go on building
  assert.equal(pick("3 5", null, "5"), null);
  assert.equal(pick("33 5", null, "5"), null);
  assert.equal(pick("3 4 5 6 8", null, "8"), null);
});

test("a longer swipe picks the longest play, ordinary before a bomb as long", () => {
  assert.equal(pick("333 44 5", null), "333 44");
  assert.equal(pick("3333 4", null), "333 4");
  assert.equal(pick("33 44 55 6", null), "33 44 55");
});

test("to beat a play: the smallest of its kind among the picked cards", () => {
  assert.equal(pick("8 9 10 J Q K", "3-7"), "8 9 10 J Q");
  assert.equal(pick("5 77 8", "44"), "77");
  assert.equal(pick("QQQ 5 6", "333 4"), "QQQ 5");
  assert.equal(pick("44 5 6 7 8 9", "3-7"), "4 5 6 7 8");
});

test("to beat a play: a bomb only when nothing of its kind fits", () => {
  assert.equal(pick("6 7777", "5"), "6");
  assert.equal(pick("7777 9", "88"), "7777");
  assert.equal(pick("3 SJ BJ", "2222"), "SJ BJ");
});

test("to beat a play: the card just tapped is kept (tap a 9 beside an 8: the 9)", () => {
  assert.equal(pick("8 9", "5", "9"), "9");
  assert.equal(pick("QQQ 5 6", "333 4", "6"), "QQQ 6");
  assert.equal(pick("4 5 6 7 8 9", "3-7", "9"), "5 6 7 8 9");
});

test("nothing to pick: no play in the cards beats the table", () => {
  assert.equal(pick("3 4", "5"), null);
  assert.equal(pick("66 7", "88"), null);
  assert.equal(pick("2", "SJ"), null);
});

test("plays are written with their main part first: Q Q Q 3, not 3 Q Q Q", () => {
  assert.deepEqual(mainFirst(parsePlay("3 QQQ")), [12, 12, 12, 3]);
  assert.deepEqual(mainFirst(parsePlay("4 666 777 5")), [6, 6, 6, 7, 7, 7, 4, 5]);
  assert.equal(mainFirstText(parsePlay("3 QQQ")), "QQQ 3");
  assert.equal(mainFirstText(parsePlay("33 5555 44")), "5555 33 44");
  assert.equal(mainFirstText(parsePlay("3 4 555 666")), "555 666 3 4");
  assert.equal(mainFirstText(parsePlay("3-7")), "3 4 5 6 7");
  assert.equal(mainFirstText(parsePlay("SJ BJ")), "SJ BJ");
  assert.equal(parsePlay("3 QQQ").kind, Kind.TRIPLE_SINGLE);
});
