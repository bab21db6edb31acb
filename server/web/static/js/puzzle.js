// @ts-check
// A puzzle (残局, issue 33) being played: the server's `puzzle` (PuzzleData) and its
// `puzzle_reply`s folded into one attempt, as the page shows it. Every hand is open; the
// server speaks in ranks (3..17) and seats numbered from the landlord (0 the landlord, 1 the
// farmer after it, 2 the other); the page shows physical cards, so each rank gets a card id
// once, at the start, and a played card leaves its hand with its id: the cards left keep
// their faces through the attempt. No DOM: node tests drive it.

import { beats, cardRank, classify } from "./rules.js";
import { cardsFor } from "./state.js";

/**
 * @typedef {{[field: string]: any}} Msg
 * @typedef {{seat: number, ranks: number[] | null}} PuzzlePlay
 * @typedef {{
 *   id: string,
 *   data: Msg,
 *   hands: number[][],
 *   turn: number | null,
 *   toBeat: {seat: number, cards: number[]} | null,
 *   step: number,
 *   moves: {seat: number, cards: number[] | null}[],
 *   result: "going" | "solved" | "failed",
 *   line: PuzzlePlay[],
 *   rating: Msg | null,
 * }} Attempt
 */

/**
 * Card ids for every hand of a position: each rank's suits handed out in seat order, the
 * jokers their own ids.
 * @param {number[][]} hands ranks by seat
 * @returns {number[][]}
 */
export function dealIds(hands) {
  /** @type {Map<number, number>} */
  const used = new Map();
  return hands.map((ranks) =>
    [...ranks]
      .sort((a, b) => a - b)
      .map((rank) => {
        if (rank >= 16) return rank === 16 ? 52 : 53;
        const n = used.get(rank) ?? 0;
        used.set(rank, n + 1);
        return (rank - 3) * 4 + n;
      }),
  );
}

/**
 * The seats I play: the landlord's (0), or both farmers' (1 and 2).
 * @param {Msg} data PuzzleData
 */
export function mySeats(data) {
  return data.side === "landlord" ? [0] : [1, 2];
}

/**
 * Whether leaving the attempt now would count as a failed try (and cost puzzle rating): a
 * first try (rated: the server says a retry is `tried`), not over yet. The sheet says so
 * from the start to the end; never on a retry, which rates nothing.
 * @param {Attempt} attempt
 */
export function leavingCounts(attempt) {
  return !attempt.data.tried && attempt.result === "going";
}

/**
 * A new attempt at a puzzle, from its start.
 * @param {Msg} data PuzzleData
 * @returns {Attempt}
 */
export function startAttempt(data) {
  const pos = data.position;
  const hands = dealIds(pos.hands);
  // the play to beat is on the table, in no hand: its cards get ids no hand has
  const toBeat = pos.to_beat ? { seat: pos.by, cards: tableIds(hands, pos.to_beat) } : null;
  return {
    id: data.puzzle_id,
    data,
    hands,
    turn: pos.turn,
    toBeat,
    step: 0,
    moves: [],
    result: "going",
    line: [],
    rating: null,
  };
}

/**
 * Ids for cards on the table (in no hand): the suits of each rank no hand holds.
 * @param {number[][]} hands @param {number[]} ranks
 */
function tableIds(hands, ranks) {
  const held = new Set(hands.flat());
  return ranks.map((rank) => {
    if (rank >= 16) return rank === 16 ? 52 : 53;
    const suit = [3, 2, 1, 0].find((s) => !held.has((rank - 3) * 4 + s)) ?? 0;
    held.add((rank - 3) * 4 + suit);
    return (rank - 3) * 4 + suit;
  });
}

/**
 * The attempt after a `puzzle_reply`: each move taken out of its seat's hand (the cards it
 * played on the table, a pass clearing nothing), then the position the server says, the
 * result, the winning line of a failure and a first attempt's rating change.
 * @param {Attempt} attempt
 * @param {Msg} reply PuzzleReply
 * @returns {Attempt}
 */
export function afterReply(attempt, reply) {
  if (reply.puzzle_id !== attempt.id) return attempt;
  const hands = attempt.hands.map((h) => [...h]);
  const moves = [...attempt.moves];
  let toBeat = attempt.toBeat;
  for (const move of /** @type {PuzzlePlay[]} */ (reply.moves)) {
    if (move.ranks === null) {
      moves.push({ seat: move.seat, cards: null });
      continue;
    }
    const cards = cardsFor(hands[move.seat], move.ranks);
    hands[move.seat] = hands[move.seat].filter((c) => !cards.includes(c));
    moves.push({ seat: move.seat, cards });
    toBeat = { seat: move.seat, cards };
  }
  const pos = reply.position;
  if (pos && pos.to_beat === null) toBeat = null;
  return {
    ...attempt,
    hands,
    moves,
    toBeat,
    turn: pos ? pos.turn : null,
    step: reply.step,
    result: reply.result,
    line: reply.line ?? [],
    rating: reply.rating ?? null,
  };
}

/**
 * Whether I am to move now, and with which seat (null: not mine, or the puzzle is over).
 * @param {Attempt} attempt
 */
export function mySeatOnTurn(attempt) {
  if (attempt.result !== "going" || attempt.turn === null) return null;
  return mySeats(attempt.data).includes(attempt.turn) ? attempt.turn : null;
}

/**
 * What the line above Play says of a pick from the hand on turn, as the table's `verdict`:
 * `ok` a legal play, `bad` one the server would refuse, `info` nothing picked; with the
 * picked play and the play to beat (ranks) for its words.
 * @param {Attempt} attempt
 * @param {Iterable<number>} picked card ids
 * @returns {{level: "ok" | "bad" | "info", key: string, play: any, other: any}}
 */
export function pickVerdict(attempt, picked) {
  const ids = [...picked];
  const other = attempt.toBeat ? classify(attempt.toBeat.cards.map(cardRank)) : null;
  if (mySeatOnTurn(attempt) === null) return { level: "info", key: "", play: null, other };
  if (!ids.length) return { level: "info", key: other ? "your_turn_beat" : "your_turn_lead", play: null, other };
  const play = classify(ids.map(cardRank));
  if (play === null) return { level: "bad", key: "not_a_play", play, other };
  if (other !== null && !beats(play, other)) return { level: "bad", key: "does_not_beat", play, other };
  return { level: "ok", key: other ? "legal_beats" : "legal", play, other };
}

/**
 * My move as the server takes it: the seat on turn plays the picked cards' ranks (none
 * picked: a pass), at the attempt's step.
 * @param {Attempt} attempt
 * @param {number[]} picked card ids (empty: pass)
 */
export function moveRequest(attempt, picked) {
  return {
    type: "puzzle_move",
    puzzle_id: attempt.id,
    seat: mySeatOnTurn(attempt),
    ranks: picked.length ? picked.map(cardRank).sort((a, b) => a - b) : null,
    step: attempt.step,
  };
}
