// @ts-check
// Dialogs over the page (a deal's summary, the match's end, the keys' help): each takes the
// focus when it opens, keeps Tab and Shift+Tab inside while open (they are aria-modal), and
// gives the focus back to where it was when it closes.

/** Where the focus was before each open dialog. @type {Map<HTMLElement, Element | null>} */
const before = new Map();

const FOCUSABLE = "button, [href], input, select, textarea, [tabindex]";

/**
 * Open or close a dialog (nothing when it already is so). Opening focuses `first` when it
 * can take the focus, else the dialog's sheet; closing puts the focus back when it was in
 * the dialog or nowhere.
 * @param {HTMLElement} dialog
 * @param {boolean} open
 * @param {HTMLElement | null} [first]
 */
export function showDialog(dialog, open, first = null) {
  if (open === !dialog.hidden) return;
  dialog.hidden = !open;
  if (open) {
    before.set(dialog, document.activeElement);
    const usable = first && !first.closest("[hidden]") && !(/** @type {HTMLButtonElement} */ (first).disabled);
    const target = usable ? first : /** @type {HTMLElement | null} */ (dialog.querySelector(".sheet"));
    target?.focus();
    return;
  }
  const back = before.get(dialog);
  before.delete(dialog);
  const lost = document.activeElement === null || document.activeElement === document.body;
  if ((lost || dialog.contains(document.activeElement)) && back instanceof HTMLElement) {
    if (back.isConnected && !back.closest("[hidden]")) back.focus();
  }
}

/**
 * Keep Tab and Shift+Tab among a dialog's own controls.
 * @param {HTMLElement} dialog
 */
export function trapFocus(dialog) {
  dialog.addEventListener("keydown", (e) => {
    if (e.key !== "Tab") return;
    const items = /** @type {HTMLElement[]} */ ([...dialog.querySelectorAll(FOCUSABLE)]).filter(
      (el) => el.tabIndex >= 0 && !el.closest("[hidden]") && !(/** @type {HTMLButtonElement} */ (el).disabled),
    );
    e.preventDefault();
    if (!items.length) return;
    const at = items.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    const next = e.shiftKey ? (at <= 0 ? items.length - 1 : at - 1) : (at + 1) % items.length;
    items[next].focus();
  });
}
