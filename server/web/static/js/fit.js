// The hand fitted to its width: the cards overlap so that each shows a strip wide enough to
// tap and to read its rank ("10" too), in one row when they fit, else in two (a phone held
// upright), the lower row over the foot of the upper.

import { $ } from "./dom.js";

/** The narrowest strip a card may show (a touch target's width, and room for "10"). */
const MIN_STRIP = 30;
/** The widest strip, as a share of a card's width: wider looks spread, not held. */
const MAX_STRIP_SHARE = 0.62;
/** The share of a card's height the upper row shows above the lower one. */
const ROW_SHARE = 0.56;

let drawnFor = "";

/** A length custom property of the hand (set by the sheet per layout), in pixels. */
function px(/** @type {CSSStyleDeclaration} */ style, /** @type {string} */ name) {
  return parseFloat(style.getPropertyValue(name)) || 0;
}

/**
 * Lay the hand out for its current width and number of cards; cheap when nothing changed
 * (every render calls it, and a resize).
 * @param {boolean} [force] lay out again even when the width and count are the same
 */
export function fitHand(force = false) {
  const el = $("hand");
  const n = el.childElementCount;
  if (el.hidden || n === 0) return;
  const width = el.clientWidth;
  const key = `${n}:${width}:${window.innerHeight}`;
  if (!force && key === drawnFor) return;
  drawnFor = key;
  const style = getComputedStyle(el);
  const cardW = px(style, "--card-w");
  const cardH = px(style, "--card-h");
  const room = width - px(style, "padding-left") - px(style, "padding-right");
  const maxStrip = Math.round(cardW * MAX_STRIP_SHARE);
  const stripFor = (/** @type {number} */ cols) =>
    cols <= 1 ? cardW : Math.min(maxStrip, Math.floor((room - cardW) / (cols - 1)));
  // two rows only where the sheet allows them (a tall screen) and one row is too tight
  const twoRows = style.getPropertyValue("--rows").trim() === "2";
  const rows = twoRows && stripFor(n) < MIN_STRIP ? 2 : 1;
  const cols = Math.ceil(n / rows);
  const strip = Math.max(stripFor(cols), Math.min(MIN_STRIP, cardW));
  const rowStep = Math.round(cardH * ROW_SHARE);
  el.style.setProperty("grid-template-columns", cols > 1 ? `repeat(${cols - 1}, ${strip}px) ${cardW}px` : `${cardW}px`);
  el.style.setProperty("grid-template-rows", rows > 1 ? `${rowStep}px ${cardH}px` : `${cardH}px`);
  el.dataset.rows = String(rows);
}

window.addEventListener("resize", () => fitHand());
