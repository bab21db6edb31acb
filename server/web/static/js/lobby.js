// @ts-check
// The lobby's requests: the room list, my last matches, and the links /#/join/CODE and
// /#/watch/CODE acted on.

import { conn, send, state, ui } from "./page.js";
import { prefs } from "./prefs.js";

// A room code as the server takes it (protocol RoomCode): letters and digits, a private
// room's long code in dash-joined groups (K7P2Q-M4XTR).
export const CODE_RE = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,22}[A-Za-z0-9])?$/;

export function readLink() {
  const m = location.hash.match(/^#\/(join|watch)\/([A-Za-z0-9-]{1,24})$/);
  ui.pending = m && CODE_RE.test(m[2]) ? { code: m[2].toUpperCase(), watch: m[1] === "watch" } : null;
}

/** After hello, outside any room: a join link joins at once when this browser has a
 * name of its own, or shows a button to join under the name in the box. */
export function actOnLink() {
  if (!ui.pending || state.room) return;
  if (prefs.named) enterPending();
}

export function enterPending() {
  const link = ui.pending;
  if (!link) return;
  if (send({ type: link.watch ? "watch" : "join_room", code: link.code })) {
    ui.pending = null;
    history.replaceState(null, "", location.pathname);
  }
}

export function listRooms() {
  if (!state.room) conn.send({ type: "list_rooms" });
}

export function getHistory() {
  if (!state.room && state.conn === "open") conn.send({ type: "get_history" });
}
