// @ts-check
// Preferences kept in this browser (localStorage, or memory when storage is refused).

/** @typedef {import("./i18n.js").Lang} Lang */

/** @returns {Storage} */
function storage() {
  try {
    localStorage.setItem("ddz.probe", "1");
    localStorage.removeItem("ddz.probe");
    return localStorage;
  } catch {
    /** @type {Map<string, string>} */
    const mem = new Map();
    return /** @type {Storage} */ (/** @type {unknown} */ ({
      getItem: (/** @type {string} */ k) => mem.get(k) ?? null,
      setItem: (/** @type {string} */ k, /** @type {string} */ v) => mem.set(k, v),
      removeItem: (/** @type {string} */ k) => mem.delete(k),
    }));
  }
}
export const store = storage();
const PREFS_KEY = "ddz.prefs";

/** @type {{name: string, named: boolean, lang: Lang | null, counter: boolean,
 *   mute: boolean, autoPass: boolean, sound: boolean, motion: boolean, smartPick: boolean,
 *   practice: {deals: number, level: string, speed: string},
 *   create: {deals: number, public: boolean}}} */
export const prefs = {
  name: `Player ${100 + Math.floor(Math.random() * 900)}`,
  named: false,
  lang: null,
  counter: false,
  mute: false,
  autoPass: false,
  sound: true,
  motion: true,
  smartPick: true,
  practice: { deals: 3, level: "normal", speed: "normal" },
  create: { deals: 3, public: false },
  ...JSON.parse(store.getItem(PREFS_KEY) ?? "{}"),
};

export function savePrefs() {
  store.setItem(PREFS_KEY, JSON.stringify(prefs));
}
