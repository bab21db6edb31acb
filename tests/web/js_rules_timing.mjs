// Driver for the timing test in tests/web/test_js_rules.py: how long a fresh page takes to
// load the rules and list every lead of some rich 20-card hands, the first time (plays not
// yet made and kept) and after (the median of the runs). Prints JSON.
import { readFileSync } from "node:fs";

const { hands, runs } = JSON.parse(readFileSync(process.argv[2], "utf8"));

/** @param {() => unknown} f */
const time = (f) => {
  const start = performance.now();
  f();
  return performance.now() - start;
};

const loading = performance.now();
const { legalPlays, parseCards } = await import("../../server/web/static/js/rules.js");
const loadMs = performance.now() - loading;

const counts = [];
const cold = [];
const warm = [];
for (const text of hands) {
  const hand = parseCards(text);
  let plays = [];
  cold.push(time(() => (plays = legalPlays(hand))));
  counts.push(plays.length);
  const times = Array.from({ length: runs }, () => time(() => legalPlays(hand)));
  times.sort((a, b) => a - b);
  warm.push(times[Math.floor(runs / 2)]);
}
const round = (/** @type {number} */ x) => Math.round(x * 100) / 100;
process.stdout.write(
  JSON.stringify({
    counts,
    load_ms: round(loadMs),
    cold_ms: cold.map(round),
    warm_ms: warm.map(round),
    worst_cold_ms: round(Math.max(...cold)),
    worst_warm_ms: round(Math.max(...warm)),
  }),
);
