// @ts-check
// Copying to the clipboard from a button, which says "Copied" for two seconds; where the
// Clipboard API is missing or refused (plain http, older browsers) a hidden textarea and
// execCommand do it.

import { ui } from "./page.js";

/** @param {string} text @param {EventTarget | null} target */
export function copy(text, target) {
  const b = /** @type {HTMLButtonElement} */ (target);
  const done = () => {
    b.textContent = ui.t("copied");
    setTimeout(() => {
      b.textContent = ui.t(b.dataset.i18n ?? "copy");
    }, 2000);
  };
  const fallback = () => {
    const area = document.createElement("textarea");
    area.value = text;
    document.body.append(area);
    area.select();
    try {
      document.execCommand("copy");
      done();
    } finally {
      area.remove();
    }
  };
  if (navigator.clipboard?.writeText) navigator.clipboard.writeText(text).then(done, fallback);
  else fallback();
}
