// @ts-check
// The hand fitted to its width: the cards overlap so that each shows a strip wide enough to
// tap and to read its rank ("10" too), in one row when they fit, else in two (a phone held
// upright), the lower row over the foot of the upper.
//
// The hand's width and the sheet's card sizes are read when the hand is resized (a
// ResizeObserver, after the browser's own layout), never while a render runs: a read of
// layout there would make the browser lay the page out at once, on every render.

import { $ } from "./dom.js";

/** The narrowest strip a card may show (a touch target's width, and room for "10"). */
const MIN_STRIP = 30;
/** The widest strip, as a share of a card's width: wider looks spread, not held. */
const MAX_STRIP_SHARE = 0.62;
/** The share of a card's height the upper row shows above the lower one. */
const ROW_SHARE = 0.56;

/** @type {{room: number, cardW: number, cardH: number, twoRows: boolean} | null} */
let metrics = null;
let laidOut = "";

/** A length custom property (or property) of a computed style, in pixels. */
function px(/** @type {CSSStyleDeclaration} */ style, /** @type {string} */ name) {
  return parseFloat(style.getPropertyValue(name)) || 0;
}

/** Read the hand's room and the sheet's card sizes (layout is fresh when this runs). */
function measure(/** @type {HTMLElement} */ el, /** @type {number} */ width) {
  const style = getComputedStyle(el);
  metrics = {
    room: width,
    cardW: px(style, "--card-w"),
    cardH: px(style, "--card-h"),
    // two rows only where the sheet allows them (a tall screen)
    twoRows: style.getPropertyValue("--rows").trim() === "2",
  };
}

/** Lay the cards out for the hand's room; nothing to do when the count and room are the same. */
export function fitHand() {
  const el = $("hand");
  const n = el.childElementCount;
  if (n === 0 || el.hidden) return;
  if (metrics === null || metrics.room === 0) {
    // first sight of the hand: measure once now rather than show a frame unfitted
    measure(el, el.clientWidth - px(getComputedStyle(el), "padding-left") - px(getComputedStyle(el), "padding-right"));
  }
  const { room, cardW, cardH, twoRows } = /** @type {NonNullable<typeof metrics>} */ (metrics);
  const key = `${n}:${room}:${cardW}:${cardH}:${twoRows}`;
  if (key === laidOut || room <= 0) return;
  laidOut = key;
  const maxStrip = Math.round(cardW * MAX_STRIP_SHARE);
  const stripFor = (/** @type {number} */ cols) =>
    cols <= 1 ? cardW : Math.min(maxStrip, Math.floor((room - cardW) / (cols - 1)));
  const rows = twoRows && stripFor(n) < MIN_STRIP ? 2 : 1;
  const cols = Math.ceil(n / rows);
  const strip = Math.max(stripFor(cols), Math.min(MIN_STRIP, cardW));
  const rowStep = Math.round(cardH * ROW_SHARE);
  el.style.setProperty("grid-template-columns", cols > 1 ? `repeat(${cols - 1}, ${strip}px) ${cardW}px` : `${cardW}px`);
  el.style.setProperty("grid-template-rows", rows > 1 ? `${rowStep}px ${cardH}px` : `${cardH}px`);
  el.dataset.rows = String(rows);
}

if (typeof ResizeObserver !== "undefined") {
  new ResizeObserver((entries) => {
    const entry = entries[entries.length - 1];
    const el = /** @type {HTMLElement} */ (entry.target);
    measure(el, entry.contentRect.width);
    fitHand();
  }).observe($("hand"));
} else {
  window.addEventListener("resize", () => {
    metrics = null;
    fitHand();
  });
}
