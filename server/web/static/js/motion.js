// @ts-check
// Motion at the table, with the Web Animations API: the cards dealt, a play moving from its
// seat to the middle, the kitty turned over (and its three cards marked in the landlord's
// hand for a few seconds), a word that pops for a bomb, the rocket and an airplane, and the
// outcome banner. Every motion is short (at most 300 ms, the words then stay a moment and
// fade), runs on elements that take no input, and is off under `prefers-reduced-motion` or
// when the setting says so.

import { $ } from "./dom.js";
import { kindName } from "./i18n.js";
import { listen, state, ui } from "./page.js";
import { prefs, savePrefs } from "./prefs.js";
import { mySeat, seatOrder } from "./state.js";

/** How long the kitty's cards stay marked in the landlord's hand, in milliseconds. */
const KITTY_MARK_MS = 3500;
/** How long an effect's word stays before it fades, in milliseconds. */
const WORD_MS = 900;
const EASE = "cubic-bezier(.2, .8, .3, 1)";

const reduced = window.matchMedia?.("(prefers-reduced-motion: reduce)");

/** Whether things move: the setting is on and the system does not ask for less motion. */
export function motionOn() {
  return prefs.motion && !reduced?.matches;
}

/** Show motion or not as the setting and the system say (a class the sheet reads). */
export function applyMotion() {
  document.body.classList.toggle("still", !motionOn());
}
reduced?.addEventListener?.("change", applyMotion);

/** Switch motion on or off (remembered). @param {boolean} on */
export function setMotion(on) {
  prefs.motion = on;
  savePrefs();
  applyMotion();
}

/** @typedef {{type: "deal"} | {type: "play", seat: number, kind: string} | {type: "kitty", seat: number, kitty: number[]}} Cue */

/** What the next render is to set in motion. @type {Cue[]} */
let cues = [];

listen((_before, msg) => {
  if (msg.type === "deal_started") cues.push({ type: "deal" });
  else if (msg.type === "played") cues.push({ type: "play", seat: msg.seat, kind: msg.kind });
  else if (msg.type === "landlord") cues.push({ type: "kitty", seat: msg.seat, kitty: msg.kitty });
  else if (msg.type === "snapshot") cues = [];
});

/**
 * Run an animation when motion is on. @param {Element} el
 * @param {Keyframe[]} frames @param {KeyframeAnimationOptions} options
 */
function animate(el, frames, options) {
  if (!motionOn() || !el.animate) return null;
  return el.animate(frames, { easing: EASE, ...options, duration: Math.min(Number(options.duration ?? 250), 300) });
}

/** After each render: set in motion what the messages since the last one cued. */
export function afterRender() {
  if (!cues.length) return;
  const now = cues;
  cues = [];
  if (!state.room?.table) return;
  for (const cue of now) {
    if (cue.type === "deal") dealt();
    else if (cue.type === "play") played(cue.seat, cue.kind);
    else kittyTurned(cue.seat, cue.kitty);
  }
}

/** The cards dealt: each card of my hand falls into place, one just after another. */
function dealt() {
  const cards = [...document.querySelectorAll("#hand > .card")];
  const step = cards.length ? Math.min(8, 120 / cards.length) : 0;
  cards.forEach((card, i) => {
    animate(card, [{ transform: "translateY(-40px) scale(.9)", opacity: 0 }, { transform: "none", opacity: 1 }], {
      duration: 170,
      delay: i * step,
      fill: "backwards",
    });
  });
  for (const pile of document.querySelectorAll(".seat .pile")) {
    animate(pile, [{ transform: "scale(.4)", opacity: 0 }, { transform: "none", opacity: 1 }], { duration: 220 });
  }
}

/** Where a seat's cards come from, as a move towards the middle: from my hand below, from
 * the right or the left seat. (No layout is read: that would make the browser lay the page
 * out at once, in the middle of the render's task.) */
const FROM = ["translate(0, 38vh)", "translate(34vw, -14vh)", "translate(-34vw, -14vh)"];

/** A play moves from its seat to the middle; a bomb, the rocket, an airplane say so. */
function played(/** @type {number} */ seat, /** @type {string} */ kind) {
  const lead = document.querySelector("#play-area .lead");
  const pos = seatOrder(state).indexOf(seat);
  if (lead && pos >= 0) {
    animate(lead, [{ transform: `${FROM[pos]} scale(.55)`, opacity: 0.4 }, { transform: "none", opacity: 1 }], {
      duration: 260,
    });
  }
  if (kind === "bomb" || kind === "rocket" || kind.startsWith("airplane")) word(kind);
}

/** The kind's name, large over the middle: pops in, stays a moment, fades. */
function word(/** @type {string} */ kind) {
  if (!motionOn()) return;
  const box = $("effect");
  const el = document.createElement("div");
  const style = kind.startsWith("airplane") ? "airplane" : kind;
  el.className = `word ${style}`;
  el.textContent = `${kind === "bomb" ? "✹ " : kind === "rocket" ? "✦ " : "✈ "}${kindName(ui.t, ui.lang, kind)}`;
  box.replaceChildren(el);
  /** @type {Record<string, Keyframe[]>} */
  const entries = {
    bomb: [{ transform: "scale(2.2)", opacity: 0 }, { transform: "scale(.9)", opacity: 1, offset: 0.7 }, { transform: "scale(1)" }],
    rocket: [{ transform: "translateY(120px) scale(.7)", opacity: 0 }, { transform: "none", opacity: 1 }],
    airplane: [{ transform: "translateX(-60vw) rotate(-8deg)", opacity: 0 }, { transform: "none", opacity: 1 }],
  };
  animate(el, entries[style], { duration: 300 });
  if (kind === "bomb" || kind === "rocket") {
    const middle = $("play-area");
    const shake = [0, -8, 7, -5, 3, 0].map((x) => ({ transform: `translateX(${x}px)` }));
    animate(middle, shake, { duration: 300 });
  }
  setTimeout(() => {
    const fade = animate(el, [{ opacity: 1 }, { opacity: 0, transform: "scale(1.1)" }], { duration: 250, fill: "forwards" });
    if (fade) fade.onfinish = () => el.remove();
    else el.remove();
  }, WORD_MS);
}

/** The kitty turns face up; in the landlord's hand (mine) its three cards are marked. */
function kittyTurned(/** @type {number} */ seat, /** @type {number[]} */ kitty) {
  [...document.querySelectorAll("#kitty .card")].forEach((card, i) => {
    animate(card, [{ transform: "rotateY(90deg)" }, { transform: "none" }], { duration: 200, delay: i * 50, fill: "backwards" });
  });
  if (seat !== mySeat(state)) return;
  const marked = kitty
    .map((id) => document.querySelector(`#hand > .card[data-card="${id}"]`))
    .filter((el) => el !== null);
  for (const el of marked) {
    el.classList.add("kitty-new");
    animate(el, [{ transform: "translateY(-22px)" }, { transform: "none" }], { duration: 280 });
  }
  setTimeout(() => {
    for (const el of marked) el.classList.remove("kitty-new");
  }, KITTY_MARK_MS);
}

/** An outcome banner pops in. @param {HTMLElement} el */
export function popIn(el) {
  animate(el, [{ transform: "scale(.6)", opacity: 0 }, { transform: "scale(1.06)", opacity: 1, offset: 0.7 }, { transform: "none" }], {
    duration: 300,
  });
}
