// @ts-check
// Words the page puts together from the state: names of seats and plays, signed points,
// dates, error and rematch lines, in the page's language (ui.t).

import { langTag, shownName, writtenPlay } from "./i18n.js";
import { state, ui } from "./page.js";

/** A player's name as shown: a bot's in the page's language ("普通机器人1"). */
export function nameOf(/** @type {string} */ name) {
  return shownName(ui.t, name);
}

/** A seat's player name, or its number when it has none. */
export function seatName(/** @type {number} */ seat) {
  const s = state.room?.seats?.[seat];
  return s?.name ? nameOf(s.name) : `${seat + 1}`;
}

/** A play as the legality line names it, main part first: "Triple + single 三带一 Q Q Q 3".
 * @param {{kind: string, cards: readonly number[]} | null} play its ranks */
export function playName(play) {
  return play ? writtenPlay(ui.t, ui.lang, play) : "";
}

export function rematchText() {
  const r = state.rematch;
  if (!r) return "";
  return r.name ? ui.t("wants_rematch", { name: r.name }) : ui.t("someone_wants_rematch");
}

export function errorText(/** @type {string} */ code, /** @type {string} */ message) {
  const key = `err_${code}`;
  const text = ui.t(key);
  return text === key ? ui.t("err_generic", { message }) : text;
}

/** Points with their sign: +6, -3, 0. */
export function signed(/** @type {number} */ n) {
  return n > 0 ? `+${n}` : String(n);
}

/** A date and time as this page's language writes it. @param {number} seconds */
export function when(seconds) {
  const tag = langTag(ui.lang);
  try {
    return new Date(seconds * 1000).toLocaleString(tag, { dateStyle: "medium", timeStyle: "short" });
  } catch {
    return new Date(seconds * 1000).toISOString();
  }
}
