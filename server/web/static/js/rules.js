// @ts-check
// The card rules for the browser table: ranks and card text, the 14 kinds of play and
// beating, every legal play of a hand, and the order a hint offers them (SPEC sections 1,
// 4, 5 and 10).
//
// A port of protocol/cards.py, plays.py, legal.py and hints.py, kept side by side
// with them: the same names (camelCase), the same order of sections, the same results.
// tests/web/test_js_rules.py holds the two equal over every play there is and thousands of
// random positions. No dependencies, no DOM, no build step: an ES module a page imports.

// --- Cards (protocol/cards.py) ----------------------------------------------------------

/**
 * A rank is an int 3..17, low to high: 3 .. 10, J=11, Q=12, K=13, A=14, 2=15, SJ=16, BJ=17.
 * `rank - 3` indexes a 15-slot count array.
 * @typedef {number} Rank
 */

/** The 15 ranks by name. */
export const Rank = Object.freeze({
  THREE: 3,
  FOUR: 4,
  FIVE: 5,
  SIX: 6,
  SEVEN: 7,
  EIGHT: 8,
  NINE: 9,
  TEN: 10,
  JACK: 11,
  QUEEN: 12,
  KING: 13,
  ACE: 14,
  TWO: 15,
  SMALL_JOKER: 16,
  BIG_JOKER: 17,
});

/** @type {readonly Rank[]} */
export const RANKS = Object.freeze([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);

/** How a person writes each rank, by rank. @type {Readonly<Record<number, string>>} */
export const RANK_TEXT = Object.freeze({
  3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10",
  11: "J", 12: "Q", 13: "K", 14: "A", 15: "2", 16: "SJ", 17: "BJ",
});

/** @type {readonly Rank[]} */
export const JOKERS = Object.freeze([Rank.SMALL_JOKER, Rank.BIG_JOKER]);

/** Suit symbols, by `cardId % 4`. */
export const SUITS = Object.freeze(["♠", "♥", "♣", "♦"]);

export const DECK_SIZE = 54;

/**
 * The rank of a physical card id (0..51 rank-major, four suits each; 52 and 53 the jokers).
 * @param {number} cardId
 * @returns {Rank}
 */
export function cardRank(cardId) {
  if (cardId >= 52) return cardId === 52 ? Rank.SMALL_JOKER : Rank.BIG_JOKER;
  return RANKS[Math.floor(cardId / 4)];
}

/**
 * The suit symbol of a physical card, or null for a joker.
 * @param {number} cardId
 * @returns {string | null}
 */
export function cardSuit(cardId) {
  return cardId < 52 ? SUITS[cardId % 4] : null;
}

/**
 * One physical card as text: `♠3`, `♦10`, `SJ` (Python's `str(Card(id))`).
 * @param {number} cardId
 * @returns {string}
 */
export function cardText(cardId) {
  if (!Number.isInteger(cardId) || cardId < 0 || cardId >= DECK_SIZE) {
    throw new RangeError(`card id ${cardId} is not in 0..53`);
  }
  const suit = cardSuit(cardId);
  const text = RANK_TEXT[cardRank(cardId)];
  return suit ? suit + text : text;
}

/** The 54 card ids in order. @returns {number[]} */
export function fullDeck() {
  return Array.from({ length: DECK_SIZE }, (_, i) => i);
}

/**
 * Sorted ranks of some physical cards.
 * @param {Iterable<number>} cardIds
 * @returns {Rank[]}
 */
export function ranksOf(cardIds) {
  return Array.from(cardIds, cardRank).sort(byNumber);
}

/**
 * A 15-slot array: how many cards of each rank, indexed by `rank - 3`.
 * @param {Iterable<Rank>} ranks
 * @returns {number[]}
 */
export function rankCounts(ranks) {
  const counts = new Array(15).fill(0);
  for (const r of ranks) {
    if (!isRank(r)) throw new RangeError(`${r} is not a rank (3..17)`);
    counts[r - 3] += 1;
  }
  return counts;
}

/** Text that does not spell cards; the message says where and why. */
export class CardTextError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "CardTextError";
  }
}

/** @type {Readonly<Record<string, Rank>>} */
const SINGLE_CHAR = Object.freeze({
  3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8, 9: 9,
  T: Rank.TEN, J: Rank.JACK, Q: Rank.QUEEN, K: Rank.KING, A: Rank.ACE, 2: Rank.TWO,
});
const SEPARATORS = " ,\t";

/**
 * Read one rank token at `chars[i]` (upper case); return it and the next position.
 * @param {string[]} chars the text as code points, as Python indexes a str
 * @param {number} i
 * @returns {[Rank, number]}
 */
function readRank(chars, i) {
  const ch = chars[i];
  const pair = chars.slice(i, i + 2).join("");
  if (pair === "10") return [Rank.TEN, i + 2];
  if (pair === "SJ") return [Rank.SMALL_JOKER, i + 2];
  if (pair === "BJ") return [Rank.BIG_JOKER, i + 2];
  if (Object.hasOwn(SINGLE_CHAR, ch)) return [SINGLE_CHAR[ch], i + 1];
  if (ch === "1") throw new CardTextError(`'1' at position ${i + 1} must be part of '10'`);
  if (ch === "S" || ch === "B") {
    throw new CardTextError(`'${ch}' at position ${i + 1} must be followed by 'J' (SJ, BJ)`);
  }
  throw new CardTextError(`'${ch}' at position ${i + 1} is not a card rank`);
}

/**
 * Read what a person types (`333 44`, `33344`, `10 10 10 J`, `TTTJ`, `sj bj`, `3-7` for one
 * card of each rank from 3 to 7) and return the ranks sorted.
 *
 * Throws CardTextError for text that is empty, spells no rank, has more cards of a rank than
 * a deck holds, or a range outside 3..A. The messages are the Python ones, word for word.
 * @param {string} text
 * @returns {Rank[]}
 */
export function parseCards(text) {
  const chars = Array.from(text.toUpperCase());
  /** @type {Rank[]} */
  const ranks = [];
  let i = 0;
  while (i < chars.length) {
    if (SEPARATORS.includes(chars[i])) {
      i += 1;
      continue;
    }
    if (chars[i] === "-") {
      if (ranks.length === 0 || i + 1 >= chars.length || SEPARATORS.includes(chars[i + 1])) {
        throw new CardTextError(`'-' at position ${i + 1} needs a rank on each side`);
      }
      const low = ranks[ranks.length - 1];
      let high;
      [high, i] = readRank(chars, i + 1);
      if (!(Rank.THREE <= low && low < high && high <= Rank.ACE)) {
        throw new CardTextError(
          `range ${RANK_TEXT[low]}-${RANK_TEXT[high]} must rise within 3..A`,
        );
      }
      for (let v = low + 1; v <= high; v++) ranks.push(v);
      continue;
    }
    let rank;
    [rank, i] = readRank(chars, i);
    ranks.push(rank);
  }
  if (ranks.length === 0) throw new CardTextError("no cards given");
  /** @type {Map<Rank, number>} in first-seen order, as Python's Counter */
  const seen = new Map();
  for (const r of ranks) seen.set(r, (seen.get(r) ?? 0) + 1);
  for (const [rank, n] of seen) {
    const limit = JOKERS.includes(rank) ? 1 : 4;
    if (n > limit) {
      throw new CardTextError(
        `${n} cards of rank ${RANK_TEXT[rank]}, but a deck has ${limit}`,
      );
    }
  }
  return ranks.sort(byNumber);
}

/**
 * Sorted ranks as text, grouped by rank: `333 44`, `10 10 J`, `SJ BJ`.
 * `parseCards(formatCards(x))` is `x` sorted, for any non-empty list of ranks.
 * @param {Iterable<Rank>} ranks
 * @returns {string}
 */
export function formatCards(ranks) {
  const counts = rankCounts(ranks);
  /** @type {string[]} */
  const groups = [];
  counts.forEach((n, index) => {
    if (n === 0) return;
    const rank = index + 3;
    const sep = rank === Rank.TEN || JOKERS.includes(rank) ? " " : "";
    groups.push(new Array(n).fill(RANK_TEXT[rank]).join(sep));
  });
  return groups.join(" ");
}

/**
 * Physical cards with suits, sorted by card id (so by rank): `♠3 ♥3 ♦10 SJ`.
 * @param {Iterable<number>} cardIds
 * @returns {string}
 */
export function formatHand(cardIds) {
  return Array.from(cardIds).sort(byNumber).map(cardText).join(" ");
}

// --- Plays (protocol/plays.py) ----------------------------------------------------------

/** The 14 kinds of play; the values are the names used on the wire. */
export const Kind = Object.freeze({
  SINGLE: "single",
  PAIR: "pair",
  TRIPLE: "triple",
  TRIPLE_SINGLE: "triple_single",
  TRIPLE_PAIR: "triple_pair",
  STRAIGHT: "straight",
  PAIR_CHAIN: "pair_chain",
  AIRPLANE: "airplane",
  AIRPLANE_SINGLES: "airplane_singles",
  AIRPLANE_PAIRS: "airplane_pairs",
  FOUR_TWO_SINGLES: "four_two_singles",
  FOUR_TWO_PAIRS: "four_two_pairs",
  BOMB: "bomb",
  ROCKET: "rocket",
});

/** @typedef {typeof Kind[keyof typeof Kind]} KindName */

/** Each kind's place in the list above. @type {Readonly<Record<string, number>>} */
export const KIND_ORDER = Object.freeze(
  Object.fromEntries(Object.values(Kind).map((kind, i) => [kind, i])),
);

/**
 * A play: its kind, its main rank and its sorted ranks. The rocket's main rank is the small
 * joker (it is never compared). Plays are frozen; compare them with `samePlay`.
 * @typedef {Readonly<{kind: KindName, rank: Rank, cards: readonly Rank[]}>} Play
 */

const ACE_INDEX = Rank.ACE - 3;
const SJ_INDEX = Rank.SMALL_JOKER - 3;
const BJ_INDEX = Rank.BIG_JOKER - 3;
/** No seat holds more than 20 cards (the landlord with the kitty), so no play is longer. */
export const MAX_PLAY_SIZE = 20;

/** Cards that form none of the 14 kinds. */
export class InvalidPlayError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "InvalidPlayError";
  }
}

/**
 * @param {KindName} kind
 * @param {Rank} rank
 * @param {readonly Rank[]} cards sorted
 * @returns {Play}
 */
function makePlay(kind, rank, cards) {
  return Object.freeze({ kind, rank, cards: Object.freeze(cards) });
}

/**
 * Parse card text and classify it; CardTextError or InvalidPlayError when it is not a play.
 * @param {string} text
 * @returns {Play}
 */
export function parsePlay(text) {
  const ranks = parseCards(text);
  const play = classify(ranks);
  if (play === null) throw new InvalidPlayError(`${formatCards(ranks)} is not a play`);
  return play;
}

/** A play as text: `333 44`. @param {Play} play @returns {string} */
export function playText(play) {
  return formatCards(play.cards);
}

/**
 * A bomb or the rocket: the plays that beat across kinds and double the score.
 * @param {Play} play
 */
export function isBombLike(play) {
  return play.kind === Kind.BOMB || play.kind === Kind.ROCKET;
}

/** Kinds with kickers, and how many cards of a rank their main part holds. */
const MAIN_WIDTH = Object.freeze({
  [Kind.TRIPLE_SINGLE]: 3,
  [Kind.TRIPLE_PAIR]: 3,
  [Kind.AIRPLANE_SINGLES]: 3,
  [Kind.AIRPLANE_PAIRS]: 3,
  [Kind.FOUR_TWO_SINGLES]: 4,
  [Kind.FOUR_TWO_PAIRS]: 4,
});

/**
 * A play's ranks as people write it, the main part first and the kickers after:
 * `Q Q Q 3`, `5 5 5 5 3 3 4 4` (the terminal client's `play_text` order,
 * client/commands.py); ranks of a kind without kickers in order.
 * @param {Play} play
 * @returns {Rank[]}
 */
export function mainFirst(play) {
  const width = /** @type {Record<string, number>} */ (MAIN_WIDTH)[play.kind];
  if (width === undefined) return [...play.cards];
  const counts = rankCounts(play.cards);
  const main = play.cards.filter((r) => counts[r - 3] === width);
  const kickers = play.cards.filter((r) => counts[r - 3] !== width);
  return [...main, ...kickers];
}

/**
 * A play as text, the main part first: `QQQ 3`, `5555 33 44` (client/commands.py
 * `play_text`; `playText` keeps Python's `str(play)`, sorted, which parses back).
 * @param {Play} play
 * @returns {string}
 */
export function mainFirstText(play) {
  const width = /** @type {Record<string, number>} */ (MAIN_WIDTH)[play.kind];
  if (width === undefined) return formatCards(play.cards);
  const counts = rankCounts(play.cards);
  const main = play.cards.filter((r) => counts[r - 3] === width);
  const kickers = play.cards.filter((r) => counts[r - 3] !== width);
  return `${formatCards(main)} ${formatCards(kickers)}`;
}

/**
 * Whether `play` may answer `other` on the table (SPEC section 5).
 * @param {Play} play
 * @param {Play} other
 * @returns {boolean}
 */
export function beats(play, other) {
  if (other.kind === Kind.ROCKET) return false;
  if (play.kind === Kind.ROCKET) return true;
  if (play.kind === Kind.BOMB) return other.kind !== Kind.BOMB || play.rank > other.rank;
  return (
    play.kind === other.kind &&
    play.cards.length === other.cards.length &&
    play.rank > other.rank
  );
}

/**
 * Whether two plays are the same play.
 * @param {Play} a
 * @param {Play} b
 */
export function samePlay(a, b) {
  return (
    a.kind === b.kind &&
    a.rank === b.rank &&
    a.cards.length === b.cards.length &&
    a.cards.every((r, i) => r === b.cards[i])
  );
}

/**
 * The first index if `indices` (ascending) is one consecutive run within 3..A, else null.
 * @param {number[]} indices
 * @returns {number | null}
 */
function runStart(indices) {
  const last = indices[indices.length - 1];
  if (last > ACE_INDEX || last - indices[0] !== indices.length - 1) return null;
  return indices[0];
}

/**
 * @param {number[]} ones ascending rank indices
 * @returns {boolean} whether they end with both jokers
 */
function endsWithBothJokers(ones) {
  const n = ones.length;
  return n >= 2 && ones[n - 2] === SJ_INDEX && ones[n - 1] === BJ_INDEX;
}

/**
 * The play these ranks make, or null when they make none (or no deck holds them, or one of
 * them is not a rank).
 * @param {Iterable<Rank>} ranks in any order
 * @returns {Play | null}
 */
export function classify(ranks) {
  const cards = Array.from(ranks);
  if (!cards.every(isRank)) return null;
  cards.sort(byNumber);
  const n = cards.length;
  if (n === 0 || n > MAX_PLAY_SIZE) return null;
  const counts = rankCounts(cards);
  if (counts[SJ_INDEX] > 1 || counts[BJ_INDEX] > 1 || Math.max(...counts) > 4) return null;
  /** @type {number[][]} rank indices by how many cards of them: [[], ones, twos, ...] */
  const byCount = [[], [], [], [], []];
  counts.forEach((c, i) => {
    if (c) byCount[c].push(i);
  });
  const [, ones, twos, threes, fours] = byCount;

  /** @param {KindName} kind @param {number} index */
  const play = (kind, index) => makePlay(kind, RANKS[index], cards);

  if (n === 1) return play(Kind.SINGLE, ones[0]);
  if (n === 2) {
    if (twos.length) return play(Kind.PAIR, twos[0]);
    return endsWithBothJokers(ones) ? play(Kind.ROCKET, SJ_INDEX) : null;
  }
  if (fours.length) {
    if (n === 4) return play(Kind.BOMB, fours[0]);
    if (n === 6 && fours.length === 1 && !endsWithBothJokers(ones)) {
      return play(Kind.FOUR_TWO_SINGLES, fours[0]);
    }
    if (n === 8 && fours.length === 1 && twos.length === 2) {
      return play(Kind.FOUR_TWO_PAIRS, fours[0]);
    }
    return null;
  }
  if (ones.length === n && n >= 5) {
    const start = runStart(ones);
    return start === null ? null : play(Kind.STRAIGHT, start);
  }
  if (twos.length * 2 === n && n >= 6) {
    const start = runStart(twos);
    return start === null ? null : play(Kind.PAIR_CHAIN, start);
  }
  if (!threes.length) return null;
  if (threes.length === 1) {
    if (n === 3) return play(Kind.TRIPLE, threes[0]);
    if (n === 4) return play(Kind.TRIPLE_SINGLE, threes[0]);
    if (n === 5 && twos.length) return play(Kind.TRIPLE_PAIR, threes[0]);
    return null;
  }
  const start = runStart(threes);
  if (start === null) return null;
  const k = threes.length;
  if (n === 3 * k) return play(Kind.AIRPLANE, start);
  if (n === 4 * k && !endsWithBothJokers(ones)) return play(Kind.AIRPLANE_SINGLES, start);
  if (n === 5 * k && twos.length === k) return play(Kind.AIRPLANE_PAIRS, start);
  return null;
}

// --- Legal plays (protocol/legal.py) ----------------------------------------------------
//
// As in the Python, plays are generated per kind straight from the hand's rank counts,
// kickers as multisets, so each distinct play comes out once; each is known by a sort key
// that sorts as the hint order does, built once and kept (at most one of each of the 24,639
// plays). The Python packs the key into one big int; here it is a string of one char per
// field, which compares the same way (the card count comes before the cards, so two keys
// that reach the cards hold the same number of them).

/** Longest chains a 20-card hand can hold, by kind. */
const MAX_STRAIGHT = 12;
const MAX_PAIR_CHAIN = 10;
const MAX_AIRPLANE = 6;
const MAX_AIRPLANE_SINGLES = 5;
const MAX_AIRPLANE_PAIRS = 4;

/** Chains start at an index below this (3..A). */
const CHAIN_END = ACE_INDEX + 1;
/** Ranks that pair (and triple and bomb): indices 0..12, 3..2, not the jokers. */
const PAIRABLE = Array.from({ length: SJ_INDEX }, (_, i) => i);

/**
 * Sort key for a hint button: ordinary plays from the smallest main rank up (then by kind,
 * size and kickers), then bombs from the smallest, then the rocket.
 * @param {Play} play
 * @returns {[number, number, number, number, readonly Rank[]]}
 */
export function hintOrder(play) {
  const group = play.kind === Kind.ROCKET ? 2 : play.kind === Kind.BOMB ? 1 : 0;
  return [group, play.rank, KIND_ORDER[play.kind], play.cards.length, play.cards];
}

/** Char code of field value 0 in a sort key (every value is below 64). */
const KEY_BASE = 0x30;

/** Every play made so far, by its sort key. @type {Map<string, Play>} */
const PLAYS = new Map();

/**
 * Make a play from rank indices, keep it, and return its sort key: the fields of `hintOrder`,
 * one char each.
 * @param {KindName} kind
 * @param {number} main rank index
 * @param {number[]} cards rank indices
 * @returns {string}
 */
function register(kind, main, cards) {
  const indices = cards.slice().sort(byNumber);
  const group = kind === Kind.ROCKET ? 2 : kind === Kind.BOMB ? 1 : 0;
  const key = String.fromCharCode(
    KEY_BASE + group,
    KEY_BASE + main,
    KEY_BASE + KIND_ORDER[kind],
    KEY_BASE + indices.length,
    ...indices.map((i) => KEY_BASE + i),
  );
  if (!PLAYS.has(key)) {
    PLAYS.set(key, makePlay(kind, RANKS[main], indices.map((i) => RANKS[i])));
  }
  return key;
}

/** @param {number} i @param {number} n @returns {number[]} */
const repeat = (i, n) => new Array(n).fill(i);
const range = (/** @type {number} */ lo, /** @type {number} */ hi) =>
  Array.from({ length: Math.max(0, hi - lo) }, (_, k) => lo + k);

const SINGLE = range(0, 15).map((i) => register(Kind.SINGLE, i, [i]));
const PAIR = PAIRABLE.map((i) => register(Kind.PAIR, i, repeat(i, 2)));
const TRIPLE = PAIRABLE.map((i) => register(Kind.TRIPLE, i, repeat(i, 3)));
const BOMB = PAIRABLE.map((i) => register(Kind.BOMB, i, repeat(i, 4)));
const ROCKET = register(Kind.ROCKET, SJ_INDEX, [SJ_INDEX, BJ_INDEX]);
/** `TRIPLE_SINGLE[i][j]`: triple of index i with single j ("" where j == i). */
const TRIPLE_SINGLE = PAIRABLE.map((i) =>
  range(0, 15).map((j) => (j === i ? "" : register(Kind.TRIPLE_SINGLE, i, [i, i, i, j]))),
);
/** `TRIPLE_PAIR[i][j]`: triple of index i with a pair of j ("" where j == i). */
const TRIPLE_PAIR = PAIRABLE.map((i) =>
  PAIRABLE.map((j) => (j === i ? "" : register(Kind.TRIPLE_PAIR, i, [i, i, i, j, j]))),
);

/**
 * `table[start][length]`: the sort key of a chain of `width` cards a rank ("" where there is
 * none). Lengths go past the longest lead, up to A, for plays to beat that no 20 cards hold.
 * @param {KindName} kind
 * @param {number} width
 * @param {number} shortest
 * @returns {string[][]}
 */
function chainTable(kind, width, shortest) {
  return range(0, CHAIN_END).map((s) =>
    range(0, CHAIN_END + 1).map((n) =>
      shortest <= n && s + n <= CHAIN_END
        ? register(kind, s, range(s, s + n).flatMap((i) => repeat(i, width)))
        : "",
    ),
  );
}

const STRAIGHT = chainTable(Kind.STRAIGHT, 1, 5);
const PAIR_CHAIN = chainTable(Kind.PAIR_CHAIN, 2, 3);
const AIRPLANE = chainTable(Kind.AIRPLANE, 3, 2);

/**
 * A kind with kickers, and its plays made so far: `cache[main index][length]` maps the
 * kickers (as text) to a sort key (length 1 for the fours).
 * @typedef {{kind: KindName, width: number, pairs: boolean, cache: Map<string, string>[][]}}
 *   KickerKind
 */

/** @param {KindName} kind @param {number} width @param {boolean} pairs @returns {KickerKind} */
function kickerKind(kind, width, pairs) {
  const cache = PAIRABLE.map(() => range(0, CHAIN_END + 1).map(() => new Map()));
  return { kind, width, pairs, cache };
}

const AIRPLANE_SINGLES = kickerKind(Kind.AIRPLANE_SINGLES, 3, false);
const AIRPLANE_PAIRS = kickerKind(Kind.AIRPLANE_PAIRS, 3, true);
const FOUR_TWO_SINGLES = kickerKind(Kind.FOUR_TWO_SINGLES, 4, false);
const FOUR_TWO_PAIRS = kickerKind(Kind.FOUR_TWO_PAIRS, 4, true);

/**
 * Multisets of `n` single kickers, each ascending: ranks outside `lo..hi-1`, at most two of a
 * rank, never both jokers. (The Python takes combinations of a list with doubled ranks and
 * drops the repeats; this walks the multisets directly. The set is the same.)
 * @param {number[]} counts
 * @param {number} lo
 * @param {number} hi
 * @param {number} n
 * @returns {number[][]}
 */
function singleKickers(counts, lo, hi, n) {
  /** @type {number[]} */
  const cands = [];
  for (let i = 0; i < 15; i++) {
    if (counts[i] && !(lo <= i && i < hi)) cands.push(i);
  }
  /** @type {number[][]} */
  const out = [];
  /** @type {number[]} */
  const kick = [];
  /** @param {number} from @param {number} left */
  const walk = (from, left) => {
    if (left === 0) {
      const m = kick.length;
      if (!(m >= 2 && kick[m - 1] === BJ_INDEX && kick[m - 2] === SJ_INDEX)) {
        out.push(kick.slice());
      }
      return;
    }
    for (let c = from; c < cands.length; c++) {
      const i = cands[c];
      const most = Math.min(counts[i], 2, left);
      for (let take = 1; take <= most; take++) {
        for (let t = 0; t < take; t++) kick.push(i);
        walk(c + 1, left - take);
        kick.length -= take;
      }
    }
  };
  walk(0, n);
  return out;
}

/**
 * Sets of `n` kicker pairs (as rank indices, ascending) of distinct ranks outside `lo..hi-1`;
 * jokers never pair.
 * @param {number[]} counts
 * @param {number} lo
 * @param {number} hi
 * @param {number} n
 * @returns {number[][]}
 */
function pairKickers(counts, lo, hi, n) {
  return combinations(
    PAIRABLE.filter((i) => counts[i] >= 2 && !(lo <= i && i < hi)),
    n,
  );
}

/**
 * Append the sort keys of the plays whose main part is `length` ranks from index `main`,
 * `spec.width` cards each, with every kicker set the hand allows.
 * @param {number[]} counts
 * @param {KickerKind} spec
 * @param {number} main
 * @param {number} length
 * @param {string[]} out
 */
function withKickers(counts, spec, main, length, out) {
  const { kind, width, pairs, cache } = spec;
  const made = cache[main][length];
  const hi = main + length;
  const n = length * (width - 2);
  const kicks = pairs ? pairKickers(counts, main, hi, n) : singleKickers(counts, main, hi, n);
  for (const kick of kicks) {
    const name = kick.join(",");
    let key = made.get(name);
    if (key === undefined) {
      const cards = range(main, hi).flatMap((i) => repeat(i, width));
      cards.push(...kick);
      if (pairs) cards.push(...kick);
      key = register(kind, main, cards);
      made.set(name, key);
    }
    out.push(key);
  }
}

/**
 * Start indices, above `above`, of the runs of `length` ranks within 3..A that hold `width`
 * cards of each rank.
 * @param {number[]} counts
 * @param {number} width
 * @param {number} length
 * @param {number} above
 * @returns {number[]}
 */
function chains(counts, width, length, above) {
  /** @type {number[]} */
  const starts = [];
  let run = 0;
  for (let s = CHAIN_END - 1; s > above; s--) {
    run = counts[s] >= width ? run + 1 : 0;
    if (run >= length) starts.push(s);
  }
  return starts;
}

/**
 * Append the sort keys of the plays of `toBeat`'s kind and size that beat it (bombs and the
 * rocket aside).
 * @param {number[]} counts
 * @param {Play} toBeat
 * @param {string[]} out
 */
function answers(counts, toBeat, out) {
  const kind = toBeat.kind;
  const above = toBeat.rank - 3;
  const size = toBeat.cards.length;
  if (kind === Kind.SINGLE) {
    for (let i = above + 1; i < 15; i++) if (counts[i]) out.push(SINGLE[i]);
  } else if (kind === Kind.PAIR) {
    for (let i = above + 1; i < SJ_INDEX; i++) if (counts[i] >= 2) out.push(PAIR[i]);
  } else if (kind === Kind.TRIPLE) {
    for (let i = above + 1; i < SJ_INDEX; i++) if (counts[i] >= 3) out.push(TRIPLE[i]);
  } else if (kind === Kind.TRIPLE_SINGLE) {
    const singles = range(0, 15).filter((j) => counts[j]);
    for (let i = above + 1; i < SJ_INDEX; i++) {
      if (counts[i] >= 3) {
        for (const j of singles) if (j !== i) out.push(TRIPLE_SINGLE[i][j]);
      }
    }
  } else if (kind === Kind.TRIPLE_PAIR) {
    const pairs = PAIRABLE.filter((j) => counts[j] >= 2);
    for (let i = above + 1; i < SJ_INDEX; i++) {
      if (counts[i] >= 3) {
        for (const j of pairs) if (j !== i) out.push(TRIPLE_PAIR[i][j]);
      }
    }
  } else if (kind === Kind.STRAIGHT) {
    for (const s of chains(counts, 1, size, above)) out.push(STRAIGHT[s][size]);
  } else if (kind === Kind.PAIR_CHAIN) {
    const n = size / 2;
    for (const s of chains(counts, 2, n, above)) out.push(PAIR_CHAIN[s][n]);
  } else if (kind === Kind.AIRPLANE) {
    const n = size / 3;
    for (const s of chains(counts, 3, n, above)) out.push(AIRPLANE[s][n]);
  } else if (kind === Kind.AIRPLANE_SINGLES || kind === Kind.AIRPLANE_PAIRS) {
    const singles = kind === Kind.AIRPLANE_SINGLES;
    const spec = singles ? AIRPLANE_SINGLES : AIRPLANE_PAIRS;
    const n = size / (singles ? 4 : 5);
    for (const s of chains(counts, 3, n, above)) withKickers(counts, spec, s, n, out);
  } else if (kind === Kind.FOUR_TWO_SINGLES || kind === Kind.FOUR_TWO_PAIRS) {
    const spec = kind === Kind.FOUR_TWO_SINGLES ? FOUR_TWO_SINGLES : FOUR_TWO_PAIRS;
    for (let i = above + 1; i < SJ_INDEX; i++) {
      if (counts[i] === 4) withKickers(counts, spec, i, 1, out);
    }
  }
}

/**
 * Append the sort keys of every play the hand may lead.
 * @param {number[]} counts
 * @param {string[]} out
 */
function lead(counts, out) {
  const singles = range(0, 15).filter((i) => counts[i]);
  const pairs = singles.filter((i) => i < SJ_INDEX && counts[i] >= 2);
  const triples = pairs.filter((i) => counts[i] >= 3);
  for (const i of singles) out.push(SINGLE[i]);
  for (const i of pairs) out.push(PAIR[i]);
  for (const i of triples) out.push(TRIPLE[i]);
  for (const i of triples) {
    for (const j of singles) if (j !== i) out.push(TRIPLE_SINGLE[i][j]);
    for (const j of pairs) if (j !== i) out.push(TRIPLE_PAIR[i][j]);
    if (counts[i] === 4) {
      withKickers(counts, FOUR_TWO_SINGLES, i, 1, out);
      withKickers(counts, FOUR_TWO_PAIRS, i, 1, out);
      out.push(BOMB[i]);
    }
  }
  if (counts[SJ_INDEX] && counts[BJ_INDEX]) out.push(ROCKET);
  // Chains: run1, run2, run3 = ranks from s on holding 1, 2, 3 cards each.
  let run1 = 0;
  let run2 = 0;
  let run3 = 0;
  for (let s = CHAIN_END - 1; s >= 0; s--) {
    const c = counts[s];
    if (!c) {
      run1 = run2 = run3 = 0;
      continue;
    }
    run1 += 1;
    if (run1 >= 5) out.push(...STRAIGHT[s].slice(5, Math.min(run1, MAX_STRAIGHT) + 1));
    if (c < 2) {
      run2 = run3 = 0;
      continue;
    }
    run2 += 1;
    if (run2 >= 3) out.push(...PAIR_CHAIN[s].slice(3, Math.min(run2, MAX_PAIR_CHAIN) + 1));
    if (c < 3) {
      run3 = 0;
      continue;
    }
    run3 += 1;
    if (run3 >= 2) {
      out.push(...AIRPLANE[s].slice(2, Math.min(run3, MAX_AIRPLANE) + 1));
      for (let n = 2; n <= Math.min(run3, MAX_AIRPLANE_SINGLES); n++) {
        withKickers(counts, AIRPLANE_SINGLES, s, n, out);
      }
      for (let n = 2; n <= Math.min(run3, MAX_AIRPLANE_PAIRS); n++) {
        withKickers(counts, AIRPLANE_PAIRS, s, n, out);
      }
    }
  }
}

/**
 * Every distinct play `hand` can make that beats `toBeat` (any play when null), in hint
 * order: ordinary plays from the smallest up, then bombs, then the rocket.
 * @param {Iterable<Rank>} hand
 * @param {Play | null} [toBeat]
 * @returns {Play[]}
 */
export function legalPlays(hand, toBeat = null) {
  const counts = rankCounts(hand);
  /** @type {string[]} */
  const keys = [];
  if (toBeat === null || toBeat === undefined) {
    lead(counts, keys);
  } else if (toBeat.kind === Kind.ROCKET) {
    return [];
  } else {
    let above = -1;
    if (toBeat.kind === Kind.BOMB) {
      above = toBeat.rank - 3;
    } else {
      answers(counts, toBeat, keys);
    }
    for (let i = above + 1; i < SJ_INDEX; i++) if (counts[i] === 4) keys.push(BOMB[i]);
    if (counts[SJ_INDEX] && counts[BJ_INDEX]) keys.push(ROCKET);
  }
  keys.sort();
  return keys.map((key) => /** @type {Play} */ (PLAYS.get(key)));
}

// --- Hint order (protocol/hints.py) ----------------------------------------------------

/** Memo of `handGroups`, by the counts as text. @type {Map<string, number>} */
const GROUPS = new Map();
const GROUPS_LIMIT = 200_000;

/**
 * Groups of a hand with no straight or pair chain taken out.
 * @param {number[]} counts
 * @returns {number}
 */
function baseGroups(counts) {
  let groups = 0;
  let singles = 0;
  let pairs = 0;
  /** @type {number[]} */
  const triples = [];
  for (let i = 0; i < SJ_INDEX; i++) {
    const c = counts[i];
    if (c === 4) groups += 1;
    else if (c === 3) triples.push(i);
    else if (c === 2) pairs += 1;
    else if (c === 1) singles += 1;
  }
  if (counts[SJ_INDEX] && counts[BJ_INDEX]) groups += 1;
  else singles += counts[SJ_INDEX] + counts[BJ_INDEX];
  /** @type {number[]} */
  const lengths = [];
  let previous = -2;
  for (const i of triples) {
    if (lengths.length && i === previous + 1 && i <= ACE_INDEX) lengths[lengths.length - 1] += 1;
    else lengths.push(1);
    previous = i;
  }
  for (let k = lengths.length - 1; k >= 0; k--) {
    const n = lengths[k];
    groups += 1;
    if (singles >= n) singles -= n;
    else if (pairs >= n) pairs -= n;
  }
  return groups + pairs + singles;
}

/**
 * The fewest groups the hand splits into (0 for no cards): the least, over every choice of
 * straights and pair chains taken out, of those chains plus the rest's base groups.
 * @param {number[]} counts 15 rank counts
 * @returns {number}
 */
export function handGroups(counts) {
  const name = counts.join("");
  const found = GROUPS.get(name);
  if (found !== undefined) return found;
  let best = baseGroups(counts);
  for (const [width, shortest] of [
    [1, 5],
    [2, 3],
  ]) {
    let run = 0;
    for (let start = ACE_INDEX; start >= 0; start--) {
      run = counts[start] >= width ? run + 1 : 0;
      if (run < shortest) continue;
      const rest = counts.slice();
      for (let i = start; i < start + shortest - 1; i++) rest[i] -= width;
      for (let i = start + shortest - 1; i < start + run; i++) {
        rest[i] -= width;
        best = Math.min(best, 1 + handGroups(rest));
      }
    }
  }
  if (GROUPS.size >= GROUPS_LIMIT) GROUPS.clear();
  GROUPS.set(name, best);
  return best;
}

/**
 * Whether `play` (from `hand`) breaks a bomb of the hand (takes some of a rank held four
 * times, or all four as anything but the bomb) or the rocket (one joker of the two).
 * @param {Play} play
 * @param {Iterable<Rank>} hand
 */
export function breaksBombOrRocket(play, hand) {
  if (isBombLike(play)) return false;
  const held = rankCounts(hand);
  const used = rankCounts(play.cards);
  if (held[SJ_INDEX] && held[BJ_INDEX] && used[SJ_INDEX] + used[BJ_INDEX] === 1) return true;
  for (let i = 0; i < SJ_INDEX; i++) if (held[i] === 4 && used[i]) return true;
  return false;
}

/**
 * Exactly the plays of `legalPlays(hand, toBeat)`, in the order a hint offers them: ordinary
 * plays that break no bomb and not the rocket, then bombs and the rocket, then plays that
 * break one; within each, those leaving the rest in the fewest groups first (chains kept
 * whole), then in `legalPlays`' order.
 * @param {Iterable<Rank>} hand
 * @param {Play | null} [toBeat]
 * @returns {Play[]}
 */
export function hintPlays(hand, toBeat = null) {
  const ranks = Array.from(hand);
  const plays = legalPlays(ranks, toBeat);
  const counts = rankCounts(ranks);
  const before = handGroups(counts);
  const keyed = plays.map((play) => {
    const tier = breaksBombOrRocket(play, ranks) ? 2 : isBombLike(play) ? 1 : 0;
    const rest = counts.slice();
    for (const r of play.cards) rest[r - 3] -= 1;
    return { play, tier, delta: handGroups(rest) - before };
  });
  keyed.sort((a, b) => a.tier - b.tier || a.delta - b.delta); // stable: ties keep the order
  return keyed.map((k) => k.play);
}

// --- Smart pick (the page's; the terminal client types its cards) ---------------------
//
// A swipe or tap whose cards are not a play that may go on the table, but hold one, picks
// that play. Which one, when several fit:
// - To beat a play: the plays of its kind first (a bomb or the rocket only when no play of
//   its kind fits), then those holding the most of the cards the gesture itself picked (so
//   tapping a 9 beside a picked 8 against a single switches to the 9), then the smallest
//   (hint order, as `legalPlays` gives them).
// - To lead: the most of the gesture's cards, then the longest play (a swipe over 3 4 4 5 6 7
//   picks the straight 3-7: five cards, not the pair of fours), ordinary plays before bombs
//   when as long, then the smallest; and only when the play keeps more than half of the
//   cards picked, so a stray swipe (3 4 4 5 6: no straight in it) or a card tapped to build
//   a play is left as it is.

/**
 * The play to pick from `picked` (ranks), or null to leave the pick as it is: when it is
 * empty, already a play that may go on the table, or holds none that fits (see above).
 * @param {Iterable<Rank>} picked the ranks picked after the gesture
 * @param {Play | null} toBeat the play on the table, null to lead
 * @param {Iterable<Rank>} [gesture] the ranks the gesture itself picked (all, by default)
 * @returns {Play | null}
 */
export function smartPick(picked, toBeat, gesture) {
  const ranks = Array.from(picked).sort(byNumber);
  if (ranks.length === 0) return null;
  const whole = classify(ranks);
  if (whole !== null && (toBeat === null || beats(whole, toBeat))) return null;
  const fresh = rankCounts(gesture === undefined ? ranks : gesture);
  /** @param {Play} play how many of the gesture's cards the play holds */
  const ofGesture = (play) => {
    const used = rankCounts(play.cards);
    return used.reduce((n, c, i) => n + Math.min(c, fresh[i]), 0);
  };
  const candidates = legalPlays(ranks, toBeat).map((play, order) => ({
    play,
    order,
    bomb: isBombLike(play) ? 1 : 0,
    fresh: ofGesture(play),
  }));
  if (candidates.length === 0) return null;
  if (toBeat !== null) {
    candidates.sort((a, b) => a.bomb - b.bomb || b.fresh - a.fresh || a.order - b.order);
    return candidates[0].play;
  }
  candidates.sort(
    (a, b) =>
      b.fresh - a.fresh ||
      b.play.cards.length - a.play.cards.length ||
      a.bomb - b.bomb ||
      a.order - b.order,
  );
  const best = candidates[0].play;
  return best.cards.length * 2 > ranks.length ? best : null;
}

// --- Helpers ----------------------------------------------------------------------------

/** @param {number} a @param {number} b */
function byNumber(a, b) {
  return a - b;
}

/** @param {unknown} r @returns {r is Rank} */
function isRank(r) {
  return Number.isInteger(r) && /** @type {number} */ (r) >= 3 && /** @type {number} */ (r) <= 17;
}

/**
 * Every way to choose `n` items of `items`, each in the items' order (Python's
 * `itertools.combinations`).
 * @template T
 * @param {T[]} items
 * @param {number} n
 * @returns {T[][]}
 */
function combinations(items, n) {
  /** @type {T[][]} */
  const out = [];
  /** @type {T[]} */
  const chosen = [];
  /** @param {number} from */
  const walk = (from) => {
    if (chosen.length === n) {
      out.push(chosen.slice());
      return;
    }
    for (let k = from; k <= items.length - (n - chosen.length); k++) {
      chosen.push(items[k]);
      walk(k + 1);
      chosen.pop();
    }
  };
  walk(0);
  return out;
}
