// @ts-check
// Small helpers for the page's elements, found by id (the ids are index.html's).

export const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
export const input = (/** @type {string} */ id) => /** @type {HTMLInputElement} */ ($(id));
export const button = (/** @type {string} */ id) => /** @type {HTMLButtonElement} */ ($(id));

/**
 * A new element with a class and, when given, its text.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [cls]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function make(tag, cls = "", text) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined) el.textContent = text;
  return el;
}
