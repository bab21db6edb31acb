// Driver for tests/web/test_js_rules.py: runs the browser's rules on the positions in the
// JSON file named on the command line and prints the answers as JSON, for the Python test
// to compare with protocol.cards / plays / legal / hints. Plays travel as "kind:rank:r,r,r" text.
import { readFileSync } from "node:fs";
import {
  beats,
  classify,
  formatCards,
  formatHand,
  hintPlays,
  legalPlays,
  mainFirstText,
  parseCards,
} from "../../server/web/static/js/rules.js";

/** @param {import("../../server/web/static/js/rules.js").Play | null} p */
const key = (p) => (p === null ? null : `${p.kind}:${p.rank}:${p.cards.join(",")}`);

/** @param {number[]} cards */
const mustClassify = (cards) => {
  const p = classify(cards);
  if (p === null) throw new Error(`the test gave ${cards} as a play, but it is none`);
  return p;
};

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));

const started = performance.now();
const out = {
  // cards are given reversed: classify must sort them itself
  classify: input.plays.map((/** @type {number[]} */ c) => key(classify(c.slice().reverse()))),
  near_misses: input.near_misses.map((/** @type {number[]} */ c) => key(classify(c))),
  format: input.plays.map((/** @type {number[]} */ c) => formatCards(c)),
  main_first: input.plays.map((/** @type {number[]} */ c) => mainFirstText(mustClassify(c))),
  reparsed: input.plays.map((/** @type {number[]} */ c) => parseCards(formatCards(c))),
  legal: input.positions.map(
    (/** @type {{hand: number[], to_beat: number[] | null}} */ { hand, to_beat }) =>
      legalPlays(hand, to_beat === null ? null : mustClassify(to_beat)).map(key),
  ),
  hint: input.positions.map(
    (/** @type {{hand: number[], to_beat: number[] | null}} */ { hand, to_beat }) =>
      hintPlays(hand, to_beat === null ? null : mustClassify(to_beat)).map(key),
  ),
  beats: input.pairs.map((/** @type {[number, number]} */ [a, b]) =>
    beats(mustClassify(input.plays[a]), mustClassify(input.plays[b])),
  ),
  parse: input.texts.map((/** @type {string} */ text) => {
    try {
      return { ranks: parseCards(text) };
    } catch (error) {
      if (error instanceof Error && error.name === "CardTextError") {
        return { error: error.message };
      }
      throw error;
    }
  }),
  format_hand: input.hands.map((/** @type {number[]} */ ids) => formatHand(ids)),
  ms: 0,
};
out.ms = Math.round(performance.now() - started);
process.stdout.write(JSON.stringify(out));
