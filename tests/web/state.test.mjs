// The browser table's reducer (state.js), words (i18n.js) and socket helpers (conn.js),
// with hand-made message sequences. Run: node --test tests/web/state.test.mjs
// (tests/web/test_js_state.py runs it).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  cardsFor,
  hintOptions,
  initialState,
  legalBids,
  myTurn,
  reduce,
  secondsLeft,
  seatOrder,
  smartPickCards,
  toBeat,
  trickOf,
  unseen,
  verdict,
} from "../../server/web/static/js/state.js";
import { KIND_ZH, LANGS, STRINGS, cardName, kindName, pickLang, translator } from "../../server/web/static/js/i18n.js";
import {
  BACKOFF,
  backoff,
  cleanName,
  FAST_FOR,
  FAST_RETRIES,
} from "../../server/web/static/js/conn.js";
import { cardRank, hintPlays, legalPlays } from "../../server/web/static/js/rules.js";
import { Kind } from "../../server/web/static/js/rules.js";

const seats = [
  { kind: "person", name: "ann", level: null, connected: true, ready: true },
  { kind: "bot", name: "bot 1", level: "easy", connected: false, ready: true },
  { kind: "bot", name: "bot 2", level: "easy", connected: false, ready: true },
];

function room(table = null, yourSeat = 0) {
  return {
    code: "ABCDE", mode: "practice", deals: 3, seats, watchers: 0, your_seat: yourSeat,
    creator_seat: 0, bot_speed: "normal", timed: false, version: 1, table,
  };
}

// card ids: rank r (3..15), suit s -> (r - 3) * 4 + s
const id = (rank, suit = 0) => (rank - 3) * 4 + suit;
const HAND = [id(3), id(3, 1), id(4), id(5), id(6), id(7), id(8), id(9), id(9, 1), id(10), id(11), id(12), id(13), id(14), id(15), 52, 53];

function started(yourSeat = 0) {
  let s = reduce(initialState(), { type: "welcome", token: "t", player_id: "p", name: "ann", resumed: false, room: "ABCDE", last_request_id: 0 }, 0);
  s = reduce(s, { type: "snapshot", room: room(null, yourSeat) }, 0);
  s = reduce(s, {
    type: "deal_started", deal_no: 1, deals_total: 3, first_bidder: 0, forced_bid: false,
    hand: yourSeat === null ? null : HAND, card_counts: [17, 17, 17],
  }, 0);
  return s;
}

test("a deal from its start: bids, the landlord's kitty, plays, passes, the trick", () => {
  let s = started();
  assert.equal(s.live, true);
  s = reduce(s, { type: "turn", seat: 0, action: "bid", may_pass: true, deadline: 115, server_time: 100, version: 0 }, 50);
  assert.equal(myTurn(s).action, "bid");
  assert.equal(secondsLeft(s.countdown, 52), 13);
  assert.deepEqual(legalBids(s), [1, 2, 3]);
  s = reduce(s, { type: "bid", seat: 0, bid: 2, highest: 2, version: 1 }, 51);
  assert.equal(myTurn(s), null);
  assert.equal(s.room.table.version, 1);
  s = reduce(s, { type: "bid", seat: 1, bid: 0, highest: 2, version: 2 }, 51);
  s = reduce(s, { type: "turn", seat: 2, action: "bid", may_pass: true, deadline: null, server_time: 1, version: 2 }, 51);
  assert.deepEqual(legalBids(s), [3]);
  s = reduce(s, { type: "bid", seat: 2, bid: 0, highest: 2, version: 3 }, 51);
  const kitty = [id(10, 1), id(10, 2), id(11, 3)];
  s = reduce(s, { type: "landlord", seat: 0, base: 2, kitty, card_counts: [20, 17, 17] }, 52);
  assert.equal(s.room.table.hand.length, 20);
  assert.equal(s.room.table.phase, "playing");
  s = reduce(s, { type: "turn", seat: 0, action: "play", may_pass: false, deadline: null, server_time: 1, version: 4 }, 53);
  // leading: anything legal; Hint starts at the smallest play and never offers pass
  const hints = hintOptions(s);
  assert.equal(hints[0].kind, Kind.SINGLE);
  assert.ok(!hints.includes(null));
  assert.equal(verdict(s, []).key, "your_turn_lead");
  assert.equal(verdict(s, [id(3)]).level, "ok");
  assert.equal(verdict(s, [id(3), id(4)]).key, "not_a_play");
  assert.equal(verdict(s, [52, 53]).play.kind, Kind.ROCKET);
  s = reduce(s, { type: "played", seat: 0, cards: [id(3), id(3, 1)], kind: "pair", rank: 3, card_counts: [18, 17, 17], multiplier: 1, version: 5 }, 54);
  assert.equal(s.room.table.hand.length, 18);
  assert.deepEqual(s.trick[0], { cards: [id(3), id(3, 1)], kind: "pair" });
  s = reduce(s, { type: "passed", seat: 1, trick_over: false, leader: null, version: 6 }, 55);
  s = reduce(s, { type: "played", seat: 2, cards: [id(7, 1), id(7, 2)], kind: "pair", rank: 7, card_counts: [18, 17, 15], multiplier: 1, version: 7 }, 55);
  assert.equal(s.trick[1], "pass");
  s = reduce(s, { type: "turn", seat: 0, action: "play", may_pass: true, deadline: null, server_time: 1, version: 7 }, 56);
  // answering a pair of 7s: a pair of 9s beats it, a single does not, pass is the last hint
  assert.equal(verdict(s, [id(9), id(9, 1)]).key, "legal_beats");
  assert.equal(verdict(s, [id(8)]).key, "does_not_beat");
  assert.equal(verdict(s, []).key, "your_turn_beat");
  // Hint cycles through the plays in the terminal client's hint order, then pass: every
  // legal answer once, those that keep bombs, the rocket and chains whole first
  const answers = hintOptions(s);
  assert.equal(answers.at(-1), null);
  const ranks = s.room.table.hand.map(cardRank);
  const wanted = hintPlays(ranks, toBeat(s)).map((p) => p.cards.join(" "));
  assert.deepEqual(answers.slice(0, -1).map((p) => p.cards.join(" ")), wanted);
  assert.deepEqual(
    [...wanted].sort(),
    legalPlays(ranks, toBeat(s)).map((p) => p.cards.join(" ")).sort(),
  );
  s = reduce(s, { type: "passed", seat: 0, trick_over: false, leader: null, version: 8 }, 57);
  s = reduce(s, { type: "passed", seat: 1, trick_over: true, leader: 2, version: 9 }, 58);
  assert.equal(s.trickOver, true);
  assert.equal(s.room.table.last_play, null);
  // the next play starts a fresh trick
  s = reduce(s, { type: "played", seat: 2, cards: [id(5, 1)], kind: "single", rank: 5, card_counts: [18, 17, 14], multiplier: 1, version: 10 }, 59);
  assert.deepEqual(s.trick, [null, null, { cards: [id(5, 1)], kind: "single" }]);
  // the card counter: own hand, the kitty and every play are seen
  const left = Object.fromEntries(unseen(s).map(({ rank, left }) => [rank, left]));
  assert.equal(left[3], 2); // two 3s in hand were played by me: seen; two more unseen
  assert.equal(left[7], 1); // the 7 in hand, two played: one left
  assert.equal(left[16], 0);
  assert.equal(left[10], 1); // one in hand, two in the kitty
});

test("smart pick on my play turn: the cards of the play the gesture's cards hold", () => {
  let s = started();
  s = reduce(s, { type: "landlord", seat: 0, base: 1, kitty: [id(10, 1), id(10, 2), id(11, 3)], card_counts: [20, 17, 17] }, 1);
  // not my turn: nothing picked for me
  const straight = [id(5), id(6), id(7), id(8), id(9), id(9, 1)];
  assert.equal(smartPickCards(s, straight, straight), null);
  s = reduce(s, { type: "turn", seat: 0, action: "play", may_pass: false, deadline: null, server_time: 1, version: 4 }, 2);
  // a swipe over 5 6 7 8 9 9 leads the straight 5-9; the 9 kept is one the swipe picked
  assert.deepEqual(smartPickCards(s, straight, straight), [id(5), id(6), id(7), id(8), id(9)]);
  assert.equal(smartPickCards(s, straight.slice(0, 5), straight.slice(0, 5)), null);
  s = reduce(s, { type: "played", seat: 0, cards: [id(3)], kind: "single", rank: 3, card_counts: [19, 17, 17], multiplier: 1, version: 5 }, 3);
  s = reduce(s, { type: "played", seat: 1, cards: [id(6, 3)], kind: "single", rank: 6, card_counts: [19, 16, 17], multiplier: 1, version: 6 }, 3);
  s = reduce(s, { type: "passed", seat: 2, trick_over: false, leader: null, version: 7 }, 3);
  s = reduce(s, { type: "turn", seat: 0, action: "play", may_pass: true, deadline: null, server_time: 1, version: 7 }, 4);
  // a 9 tapped beside a picked 8 against a single 6: the 9
  assert.deepEqual(smartPickCards(s, [id(8), id(9, 1)], [id(9, 1)]), [id(9, 1)]);
  // the second 9 tapped beside the first: a pair does not answer a single, and the 9 is kept
  assert.deepEqual(smartPickCards(s, [id(9), id(9, 1)], [id(9, 1)]), [id(9, 1)]);
});

test("a snapshot rebuilds the current trick from plays and passes", () => {
  const table = {
    plays: [
      { seat: 0, cards: [1], kind: "single" },
      { seat: 1, cards: [9], kind: "single" },
      { seat: 1, cards: [20, 21], kind: "pair" },
    ],
    passes: [[2, 2], [0, 2], [2, 3]],
  };
  const { trick, trickOver } = trickOf(table);
  assert.equal(trickOver, false);
  assert.deepEqual(trick, [null, { cards: [20, 21], kind: "pair" }, "pass"]);
  const over = trickOf({ ...table, passes: [...table.passes, [0, 3]] });
  assert.equal(over.trickOver, true);
});

test("a watcher has no hand, no turn and seat 0 at the bottom", () => {
  const s = started(null);
  assert.deepEqual(seatOrder(s), [0, 1, 2]);
  assert.equal(s.room.table.hand, null);
  const t = reduce(s, { type: "turn", seat: 0, action: "bid", may_pass: true, deadline: null, server_time: 1, version: 0 }, 1);
  assert.equal(myTurn(t), null);
  assert.deepEqual(seatOrder(started(1)), [1, 2, 0]);
});

test("a dropped socket makes the table not live until a snapshot", () => {
  let s = started();
  s = reduce(s, { type: "turn", seat: 0, action: "bid", may_pass: true, deadline: 10, server_time: 1, version: 0 }, 1);
  s = reduce(s, { type: "_closed" }, 2);
  assert.equal(s.live, false);
  assert.equal(myTurn(s), null);
  assert.equal(s.countdown, null);
  s = reduce(s, { type: "_down", retryIn: 2 }, 3);
  assert.equal(s.conn, "down");
  s = reduce(s, { type: "welcome", token: "t", player_id: "p", name: "ann", resumed: true, room: "ABCDE", last_request_id: 3 }, 4);
  assert.equal(s.live, false); // a snapshot follows
  s = reduce(s, { type: "snapshot", room: room({ ...started().room.table }) }, 5);
  assert.equal(s.live, true);
  // welcomed back into no room: the room ended meanwhile
  let gone = reduce(started(), { type: "_closed" }, 1);
  gone = reduce(gone, { type: "welcome", token: "t", player_id: "p", name: "ann", resumed: true, room: null, last_request_id: 0 }, 2);
  assert.equal(gone.room, null);
  assert.equal(gone.notice, "room_gone");
});

test("a refused request changes nothing but the error", () => {
  const s = started();
  const t = reduce(s, { type: "error", code: "stale", message: "moved on", request_id: 4 }, 1);
  assert.equal(t.room, s.room);
  assert.equal(t.error.code, "stale");
});

test("seat control: the banner's state and the version", () => {
  let s = started();
  s = reduce(s, { type: "turn", seat: 1, action: "bid", may_pass: true, deadline: 9, server_time: 1, version: 5 }, 1);
  s = reduce(s, { type: "seat_control", seat: 0, bot: true, reason: "timeouts", version: 5 }, 1);
  assert.equal(s.room.table.bot_control[0], true);
  s = reduce(s, { type: "seat_control", seat: 0, bot: false, reason: "resume", version: 6 }, 1);
  assert.equal(s.room.table.bot_control[0], false);
  assert.equal(s.room.table.version, 6);
  assert.equal(s.room.table.turn.version, 6);
});

test("the match's end keeps the result; room_closed after it keeps the room", () => {
  let s = started();
  s = reduce(s, { type: "match_end", totals: [4, -2, -2], winners: [0], deal_scores: [[4, -2, -2]] }, 1);
  s = reduce(s, { type: "room_closed", reason: "match_over" }, 1);
  assert.deepEqual(s.result.winners, [0]);
  assert.notEqual(s.room, null);
  s = reduce(s, { type: "_lobby" }, 2);
  assert.equal(s.room, null);
});

test("cardsFor picks held cards of the hinted ranks", () => {
  assert.deepEqual(cardsFor(HAND, [3, 3]), [id(3), id(3, 1)]);
  assert.deepEqual(cardsFor(HAND, [16, 17]), [52, 53]);
  assert.deepEqual(cardsFor(HAND, [4, 4]), []);
});

test("every language has every string, and the kinds their Chinese names", () => {
  const keys = Object.keys(STRINGS.en).sort();
  for (const lang of LANGS) assert.deepEqual(Object.keys(STRINGS[lang]).sort(), keys, lang);
  for (const kind of Object.values(Kind)) {
    assert.ok(KIND_ZH[kind], kind);
    assert.ok(STRINGS.en[`kind_${kind}`], kind);
  }
  const en = translator("en");
  assert.equal(cardName(en, id(7, 1)), "seven of hearts");
  assert.equal(cardName(en, 52), "small joker");
  assert.equal(cardName(translator("zh"), id(7, 1)), "红桃7");
  assert.equal(cardName(translator("de"), id(14, 3)), "Karo Ass");
  assert.equal(cardName(translator("id"), id(10, 0)), "sepuluh sekop");
  assert.equal(kindName(en, "en", "airplane"), "Airplane 飞机");
  assert.equal(kindName(translator("zh"), "zh", "triple_single"), "三带一");
  assert.equal(en("deal_of", { n: 2, total: 3 }), "Deal 2/3");
});

test("the language comes from the browser's list", () => {
  assert.equal(pickLang(["zh-CN", "en"]), "zh");
  assert.equal(pickLang(["de-AT"]), "de");
  assert.equal(pickLang(["id-ID"]), "id");
  assert.equal(pickLang(["fr-FR", "de"]), "de");
  assert.equal(pickLang(["fr-FR"]), "en");
});

test("names and backoff as the server wants them", () => {
  assert.equal(cleanName("  ann  "), "ann");
  assert.equal(cleanName("ann" + " ".repeat(72)), "ann");
  assert.equal(cleanName("a" + " ".repeat(30) + "b"), "a b"); // not cut to "a" and spaces
  assert.equal(cleanName(""), "player");
  assert.equal(Array.from(cleanName("🂡".repeat(30))).length, 24);
});

test("while the server was reachable a moment ago, tries come within about a second", () => {
  assert.equal(backoff(0, 0, () => 0), FAST_RETRIES[0]);
  assert.ok(backoff(0, 0, () => 1) < 0.5); // the first try nearly at once
  // however many tries failed (a 503 while it starts among them), the next is within a second
  for (const attempt of [0, 1, 2, 5, 40]) {
    assert.ok(backoff(attempt, 10, () => 1) <= 1, `try ${attempt}`);
  }
  // a restart's outage of 6 s or 25 s, tried as the page tries it: never a second without one
  for (const outage of [6, 25]) {
    let now = 0.3; // the first try after a live link closed
    let attempt = 0;
    let longest = 0;
    while (now < outage + 3) {
      const delay = backoff(attempt, now, Math.random);
      longest = Math.max(longest, delay);
      now += delay;
      attempt += 1;
    }
    assert.ok(longest <= 1, `${outage} s down: a wait of ${longest} s`);
  }
});

test("once the server has been away longer, tries come further apart, up to the last", () => {
  assert.equal(backoff(0, FAST_FOR, () => 0), BACKOFF[0]);
  assert.equal(backoff(200, FAST_FOR, () => 0), BACKOFF[0]); // the fast tries do not count
  assert.equal(backoff(201, FAST_FOR + BACKOFF[0], () => 0), BACKOFF[1]);
  assert.equal(backoff(202, FAST_FOR + BACKOFF[0] + BACKOFF[1], () => 0), BACKOFF[2]);
  assert.equal(backoff(99, FAST_FOR + 3600, () => 0), BACKOFF.at(-1));
  assert.ok(backoff(99, FAST_FOR + 3600, () => 1) <= BACKOFF.at(-1) * 1.2);
  let last = 0;
  for (let downFor = 0; downFor < FAST_FOR + 100; downFor += 0.5) {
    const delay = backoff(0, downFor, () => 0);
    assert.ok(delay >= last, `at ${downFor} s`);
    last = delay;
  }
});

test("the table's version is the one each event states, not counted by the page", () => {
  let s = started();
  s = reduce(s, { type: "bid", seat: 0, bid: 2, highest: 2, version: 7 }, 51);
  assert.equal(s.room.table.version, 7);
  s = reduce(s, { type: "seat_control", seat: 1, bot: true, reason: "timeouts", version: 9 }, 52);
  assert.equal(s.room.table.version, 9);
  s = reduce(s, { type: "passed", seat: 1, trick_over: false, leader: null, version: 9 }, 53);
  assert.equal(s.room.table.version, 9);
});

test("a snapshot between deals counts down to the next deal, as the last awaiting_ready did", () => {
  let s = started();
  const table = {
    ...s.room.table, phase: "between_deals", turn: null,
    awaiting: { type: "awaiting_ready", ready: [false, true, true], deadline: 110, server_time: 100, version: 7 },
  };
  s = reduce(s, { type: "snapshot", room: room(table) }, 50);  // a reconnect between deals
  assert.equal(secondsLeft(s.countdown, 52), 8);
});

test("a rematch offer names the asker as the server says, whatever room is on screen", () => {
  const s = reduce(initialState(), { type: "rematch_asked", code: "OTHER", seat: 1, deadline: 130, server_time: 100, name: "Bo" }, 50);
  assert.equal(s.rematch.name, "Bo");
});

test("a pause stops the countdown and says so; the resume's prompt starts it again", () => {
  let s = started();
  s = reduce(s, { type: "turn", seat: 0, action: "bid", may_pass: true, deadline: 120, server_time: 100, version: 1 }, 10);
  assert.equal(secondsLeft(s.countdown, 12), 18);
  const hand = s.room.table.hand;
  s = reduce(s, { type: "paused", code: "OTHER", since: 101 }, 11);
  assert.equal(s.paused, false); // another room's notice is not this one's
  s = reduce(s, { type: "paused", code: "ABCDE", since: 101 }, 11);
  assert.equal(s.paused, true);
  assert.equal(s.countdown, null);
  assert.deepEqual(s.room.table.hand, hand); // nothing else changes
  s = reduce(s, { type: "resumed", code: "ABCDE" }, 200);
  assert.equal(s.paused, false);
  s = reduce(s, { type: "turn", seat: 0, action: "bid", may_pass: true, deadline: 219, server_time: 200, version: 2 }, 200);
  assert.equal(secondsLeft(s.countdown, 200), 19);
  s = reduce(reduce(s, { type: "paused", code: "ABCDE", since: 201 }, 201), { type: "_closed" }, 202);
  assert.equal(s.paused, false); // the next connection is told again if it still holds
});

test("the pause banner and its refusal are said in every language", () => {
  for (const lang of LANGS) {
    assert.ok(STRINGS[lang].paused_banner, lang);
    assert.ok(STRINGS[lang].err_storage_unavailable, lang);
  }
});
