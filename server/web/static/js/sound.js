// @ts-check
// Sounds of the table, made on the spot with the Web Audio API (nothing is fetched): my
// turn, a play, a pass, a bomb, the rocket, an opponent down to two cards and to one, the
// last five seconds of my clock, the end of a deal (won or lost). One switch mutes them all,
// kept in this browser. A browser lets a page sound only after a tap or a key, so the audio
// starts with the first one.

import { listen, state } from "./page.js";
import { prefs, savePrefs } from "./prefs.js";
import { mySeat, secondsLeft } from "./state.js";

/** @typedef {"turn" | "play" | "pass" | "bomb" | "rocket" | "two_left" | "one_left" | "tick" | "won" | "lost" | "deal_end"} Sound */

/** @type {AudioContext | null} */
let audio = null;
/** The sounds played, latest last (for tests and the curious: `ddz.sounds()`). */
export const played = /** @type {Sound[]} */ ([]);

function context() {
  if (audio === null) {
    const Ctor = window.AudioContext ?? /** @type {any} */ (window).webkitAudioContext;
    if (!Ctor) return null;
    audio = /** @type {AudioContext} */ (new Ctor());
  }
  if (audio.state === "suspended") void audio.resume();
  return audio;
}

/**
 * A tone: a wave from `from` Hz gliding to `to` Hz, `ms` long, starting `at` ms from now.
 * @param {AudioContext} ctx
 * @param {{type?: OscillatorType, from: number, to?: number, ms: number, at?: number, gain?: number}} tone
 */
function tone(ctx, { type = "sine", from, to = from, ms, at = 0, gain = 0.18 }) {
  const start = ctx.currentTime + at / 1000;
  const end = start + ms / 1000;
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(from, start);
  osc.frequency.exponentialRampToValueAtTime(to, end);
  amp.gain.setValueAtTime(0.0001, start);
  amp.gain.exponentialRampToValueAtTime(gain, start + 0.008);
  amp.gain.exponentialRampToValueAtTime(0.0001, end);
  osc.connect(amp).connect(ctx.destination);
  osc.start(start);
  osc.stop(end + 0.02);
}

/**
 * A burst of noise through a filter (a card laid down, a blast), `ms` long.
 * @param {AudioContext} ctx
 * @param {{ms: number, freq: number, to?: number, type?: BiquadFilterType, gain?: number, at?: number}} burst
 */
function noise(ctx, { ms, freq, to = freq, type = "bandpass", gain = 0.3, at = 0 }) {
  const start = ctx.currentTime + at / 1000;
  const length = Math.ceil((ctx.sampleRate * ms) / 1000);
  const buffer = ctx.createBuffer(1, length, ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / length) ** 2;
  const src = ctx.createBufferSource();
  src.buffer = buffer;
  const filter = ctx.createBiquadFilter();
  filter.type = type;
  filter.frequency.setValueAtTime(freq, start);
  filter.frequency.exponentialRampToValueAtTime(to, start + ms / 1000);
  const amp = ctx.createGain();
  amp.gain.value = gain;
  src.connect(filter).connect(amp).connect(ctx.destination);
  src.start(start);
}

/** @type {Record<Sound, (ctx: AudioContext) => void>} */
const VOICES = {
  turn: (c) => {
    tone(c, { from: 660, ms: 120, gain: 0.16 });
    tone(c, { from: 990, ms: 180, at: 110, gain: 0.16 });
  },
  play: (c) => noise(c, { ms: 70, freq: 2400, gain: 0.5 }),
  pass: (c) => tone(c, { type: "triangle", from: 420, to: 300, ms: 140, gain: 0.14 }),
  bomb: (c) => {
    noise(c, { ms: 650, freq: 900, to: 60, type: "lowpass", gain: 0.9 });
    tone(c, { from: 110, to: 40, ms: 500, gain: 0.35 });
  },
  rocket: (c) => {
    noise(c, { ms: 500, freq: 300, to: 4000, gain: 0.45 });
    tone(c, { type: "sawtooth", from: 200, to: 1400, ms: 420, gain: 0.08 });
    noise(c, { ms: 400, freq: 700, to: 80, type: "lowpass", gain: 0.8, at: 420 });
  },
  two_left: (c) => {
    tone(c, { type: "square", from: 880, ms: 90, gain: 0.07 });
    tone(c, { type: "square", from: 880, ms: 90, at: 140, gain: 0.07 });
  },
  one_left: (c) => {
    for (const at of [0, 120, 240]) tone(c, { type: "square", from: 1175, ms: 80, at, gain: 0.08 });
  },
  tick: (c) => tone(c, { type: "square", from: 1500, ms: 35, gain: 0.05 }),
  won: (c) => {
    [523, 659, 784, 1047].forEach((f, i) => tone(c, { type: "triangle", from: f, ms: 220, at: i * 110, gain: 0.16 }));
  },
  lost: (c) => {
    [392, 330, 262].forEach((f, i) => tone(c, { type: "triangle", from: f, ms: 260, at: i * 150, gain: 0.14 }));
  },
  deal_end: (c) => tone(c, { type: "triangle", from: 660, to: 520, ms: 300, gain: 0.14 }),
};

/** Play a sound, unless muted. @param {Sound} name */
export function play(name) {
  if (!prefs.sound) return;
  played.push(name);
  if (played.length > 50) played.shift();
  const ctx = context();
  if (ctx && ctx.state === "running") VOICES[name](ctx);
}

/** Switch the sound on or off (remembered). @param {boolean} on */
export function setSound(on) {
  prefs.sound = on;
  savePrefs();
  if (on) context();
}

/** What a message sounds like, if anything. */
listen((before, msg) => {
  const table = state.room?.table;
  const me = mySeat(state);
  if (!table) return;
  switch (msg.type) {
    case "turn":
      if (msg.seat === me && !table.bot_control[me]) play("turn");
      break;
    case "played": {
      play(msg.kind === "rocket" ? "rocket" : msg.kind === "bomb" ? "bomb" : "play");
      const left = msg.card_counts?.[msg.seat];
      const had = before.room?.table?.card_counts?.[msg.seat];
      if (msg.seat !== me && had > 2 && left === 2) setTimeout(() => play("two_left"), 250);
      if (msg.seat !== me && had > 1 && left === 1) setTimeout(() => play("one_left"), 250);
      break;
    }
    case "passed":
      play("pass");
      break;
    case "deal_end": {
      if (me === null) play("deal_end");
      else play(msg.score.scores[me] > 0 ? "won" : "lost");
      break;
    }
  }
});

let lastTick = -1;
/** The last five seconds of my clock, one tick a second (called by the page's clock). */
export function tickClock() {
  const table = state.room?.table;
  const me = mySeat(state);
  const turn = table?.turn;
  if (!turn || turn.seat !== me || me === null || table.bot_control[me]) {
    lastTick = -1;
    return;
  }
  const left = secondsLeft(state.countdown, performance.now() / 1000);
  if (left === null || left <= 0) return;
  const s = Math.ceil(left);
  if (s <= 5 && s !== lastTick) {
    lastTick = s;
    play("tick");
  }
}

// a browser lets audio start only from a tap or a key: start it with the first one
for (const type of ["pointerdown", "keydown"]) {
  window.addEventListener(type, () => prefs.sound && context(), { capture: true, passive: true });
}
