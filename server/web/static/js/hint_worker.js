// @ts-check
// Hint's plays worked out off the page's thread: on a 20-card lead there are thousands of
// legal plays to order, which can take longer than a frame (tens of milliseconds).

import { hintPlays } from "./rules.js";

self.addEventListener("message", (e) => {
  const { key, ranks, toBeat } = e.data;
  self.postMessage({ key, plays: hintPlays(ranks, toBeat) });
});
