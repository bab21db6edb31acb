// @ts-check
// The lasting player on this browser: its key taken from a link (`#player=KEY`, a fragment,
// which a browser never sends to a server; taken out of the address bar at once), typed as
// a code, or started afresh; the first visit's note (a new player is made unless a code is
// given); and what the page says when the server refuses the key (replaced elsewhere) or
// another tab or device of this player took the session over.

import { showDialog, trapFocus } from "./dialogs.js";
import { $, input } from "./dom.js";
import { conn, scheduleRender, state, toast, ui } from "./page.js";
import { prefs, savePrefs, store } from "./prefs.js";
import { keyFrom } from "./conn.js";

/** Set while this browser started as a new player and the person has not said OK yet. */
const FIRST_VISIT = `ddz.first.${location.host}`;
const LINK_RE = /#player=([^&\s]+)/;

/** The link that opens this page as the player of `key`. @param {string} key */
export function keyLink(key) {
  return `${location.origin}/#player=${key}`;
}

/** Before the first hello: a key in the address is taken (and the address cleaned); a
 * browser with neither a key nor a session yet is a first visit, noted until the person
 * says OK (a session from before keys is an existing player's: the server gives it one). */
export function readKeyLink() {
  const m = LINK_RE.exec(location.hash);
  if (m) {
    history.replaceState(null, "", location.pathname + location.search);
    const key = keyFrom(m[0]);
    if (key === null) toast(ui.t("code_bad"));
    else if (conn.playerKey === null) {
      conn.keepKey(key);
      ui.movedIn = true;
    } else if (conn.playerKey !== key) ui.linkKey = key;
  }
  if (conn.playerKey === null && conn.token === null) store.setItem(FIRST_VISIT, "1");
}

/** A key link opened while the page runs (pasted into the address bar). */
function keyLinkLater() {
  const m = LINK_RE.exec(location.hash);
  if (!m) return;
  history.replaceState(null, "", location.pathname + location.search);
  const key = keyFrom(m[0]);
  if (key === null) toast(ui.t("code_bad"));
  else if (conn.playerKey !== key) ui.linkKey = key;
  scheduleRender();
}

/** Go on as the player of `key` on this browser. @param {string} key */
function useKey(key) {
  store.removeItem(FIRST_VISIT);
  ui.linkKey = null;
  ui.movedIn = true;
  ui.keyShown = false;
  ui.sheet = null;
  conn.useKey(key);
}

/** After a welcome: a code or link just taken up is said so, and the player's name (as
 * their session has it) becomes this browser's. @param {{name: string}} welcome */
export function welcomed(welcome) {
  if (!ui.movedIn) return;
  ui.movedIn = false;
  store.removeItem(FIRST_VISIT);
  if (welcome.name && welcome.name !== prefs.name) {
    prefs.name = welcome.name;
    prefs.named = true;
    savePrefs();
  }
  toast(ui.t("moved_in"));
}

/** The lobby's notes, the status line's choices, the code dialog. */
export function renderKeyParts() {
  const first = store.getItem(FIRST_VISIT) === "1";
  if (first && (state.history?.length ?? 0) > 0) store.removeItem(FIRST_VISIT); // played since
  $("first-visit").hidden = !first || state.conn === "refused" || ui.linkKey !== null || !!state.history?.length;
  $("link-switch").hidden = ui.linkKey === null;
  $("refused-choices").hidden = state.conn !== "refused";
  $("play-here").hidden = state.conn !== "elsewhere";
}

/** Open the dialog to type a code. */
export function openCodeDialog() {
  input("key-input").value = "";
  showError(false);
  showDialog($("code-dialog"), true, input("key-input"));
}

/** The code dialog's "not a code" line (in the page's language, as it changes). */
function showError(/** @type {boolean} */ on) {
  const el = $("key-error");
  if (on) el.dataset.i18n = "code_bad";
  else delete el.dataset.i18n;
  el.textContent = on ? ui.t("code_bad") : "";
}

function closeCodeDialog() {
  showDialog($("code-dialog"), false);
}

export function wireKey() {
  const dialog = $("code-dialog");
  trapFocus(dialog);
  dialog.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    e.preventDefault();
    closeCodeDialog();
  });
  $("code-cancel").addEventListener("click", closeCodeDialog);
  $("key-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const key = keyFrom(input("key-input").value);
    if (key === null) {
      showError(true);
      input("key-input").focus();
      return;
    }
    closeCodeDialog();
    useKey(key);
  });
  for (const id of ["first-visit-code", "refused-code"]) $(id).addEventListener("click", openCodeDialog);
  $("first-visit-ok").addEventListener("click", () => {
    store.removeItem(FIRST_VISIT);
    scheduleRender();
  });
  $("refused-new").addEventListener("click", () => {
    store.setItem(FIRST_VISIT, "1");
    conn.newPlayer();
    scheduleRender();
  });
  $("play-here").addEventListener("click", () => conn.start());
  $("link-switch-yes").addEventListener("click", () => {
    if (ui.linkKey) useKey(ui.linkKey);
  });
  $("link-switch-no").addEventListener("click", () => {
    ui.linkKey = null;
    scheduleRender();
  });
  window.addEventListener("hashchange", keyLinkLater);
}
