// @ts-check
// A finished match's replay (the server's `replay` message, ReplayData), step by step: what
// the table looked like after the first `step` events of a deal. Every hand is known here
// (the server sends a replay only once the match is over). No DOM: node tests drive it.

/**
 * @typedef {{[field: string]: any}} Msg
 * @typedef {{
 *   hands: number[][],
 *   bids: (number | null)[],
 *   landlord: number | null,
 *   base: number,
 *   kittyTaken: boolean,
 *   multiplier: number,
 *   trick: ({cards: number[], kind: string} | "pass" | null)[],
 *   botControl: boolean[],
 *   last: Msg | null,
 *   step: number,
 *   steps: number,
 *   end: Msg | null,
 * }} ReplayFrame
 */

/** @param {number[]} cards */
function sorted(cards) {
  return [...cards].sort((a, b) => a - b);
}

/**
 * How many steps a deal has: one per event (step 0 is the deal as dealt).
 * @param {Msg} deal a ReplayDeal
 */
export function stepCount(deal) {
  return deal.events.length;
}

/**
 * The table after the first `step` events of deal number `index` (0-based) of a replay;
 * `step` is clamped to 0..stepCount. At the last step, `end` is the deal's end (null for a
 * void deal, or one never finished).
 * @param {Msg} replay
 * @param {number} index
 * @param {number} step
 * @returns {ReplayFrame}
 */
export function replayFrame(replay, index, step) {
  const deal = replay.deals[index];
  const steps = stepCount(deal);
  const upto = Math.max(0, Math.min(step, steps));
  const hands = deal.hands.map(sorted);
  /** @type {(number | null)[]} */
  const bids = [null, null, null];
  /** @type {ReplayFrame["trick"]} */
  let trick = [null, null, null];
  let trickOver = false;
  let landlord = null;
  let base = 0;
  let kittyTaken = false;
  let multiplier = 1;
  const botControl = [false, false, false];
  for (const ev of deal.events.slice(0, upto)) {
    switch (ev.type) {
      case "bid":
        bids[ev.seat] = ev.bid;
        break;
      case "landlord":
        landlord = ev.seat;
        base = ev.base;
        kittyTaken = true;
        hands[ev.seat] = sorted([...hands[ev.seat], ...ev.kitty]);
        break;
      case "played": {
        if (trickOver) trick = [null, null, null];
        trickOver = false;
        const gone = new Set(ev.cards);
        hands[ev.seat] = hands[ev.seat].filter((/** @type {number} */ c) => !gone.has(c));
        trick[ev.seat] = { cards: ev.cards, kind: ev.kind };
        multiplier = ev.multiplier;
        break;
      }
      case "passed":
        trick[ev.seat] = "pass";
        if (ev.trick_over) trickOver = true;
        break;
      case "seat_control":
        botControl[ev.seat] = ev.bot;
        break;
    }
  }
  return {
    hands,
    bids,
    landlord,
    base,
    kittyTaken,
    multiplier,
    trick,
    botControl,
    last: upto > 0 ? deal.events[upto - 1] : null,
    step: upto,
    steps,
    end: upto === steps ? deal.end ?? null : null,
  };
}
