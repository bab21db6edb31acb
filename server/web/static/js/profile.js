// @ts-check
// The profile sheet, from the lobby: my name and rating, matches played and won per mode,
// deals as landlord and as farmer with their win rates, points won and lost, springs, bombs
// and rockets, the best match, and my matches 20 a page, each with Replay; then the player
// code and its link for another device (shown on request), a new code, and a code to type.

import { showDialog, trapFocus } from "./dialogs.js";
import { $, button, make } from "./dom.js";
import { langTag } from "./i18n.js";
import { copy } from "./clipboard.js";
import { drawTrend, ratingText } from "./ladder.js";
import { conn, scheduleRender, send, state, toast, ui } from "./page.js";
import { keyLink, openCodeDialog } from "./player_key.js";
import { historyItem } from "./history_item.js";

/** Matches one profile page lists (protocol PROFILE_PAGE). */
export const PROFILE_PAGE = 20;
const MODES = ["practice", "quick", "private"];

export function openProfile() {
  ui.sheet = "profile";
  ui.profileOffset = 0;
  ui.keyShown = false;
  ui.newKeyArmed = false;
  send({ type: "get_profile", offset: 0 });
  send({ type: "get_leaderboard" }); // my rating is my line of the ladder
  $("profile-body").scrollTop = 0;
  scheduleRender();
}

function closeProfile() {
  ui.sheet = null;
  ui.keyShown = false;
  ui.newKeyArmed = false;
  scheduleRender();
}

/** Another page of my matches. @param {number} step +1 older, -1 newer */
function page(step) {
  const total = state.profile?.total ?? 0;
  const next = Math.max(0, ui.profileOffset + step * PROFILE_PAGE);
  if (next === ui.profileOffset || next >= Math.max(total, 1)) return;
  ui.profileOffset = next;
  send({ type: "get_profile", offset: next });
  scheduleRender();
}

/** What the sheet was last drawn from: drawn again only when it changes, so that a
 * person tabbing through it keeps their place. */
let drawn = /** @type {any[]} */ ([]);
/** The Replay button a replay was opened by: the focus goes back to it when it closes. */
let replayOpener = /** @type {HTMLElement | null} */ (null);
let replayShown = false;

export function renderProfile() {
  const open = ui.sheet === "profile" && state.conn === "open";
  showDialog($("profile"), open);
  if (!open) {
    if (drawn.length) {
      for (const id of ["profile-stats", "profile-best", "profile-matches"]) $(id).replaceChildren();
      $("key-code").textContent = "";
      $("key-link").textContent = "";
      $("key-link").removeAttribute("href");
      drawn = [];
    }
    return;
  }
  if (replayOpener && state.replay !== null) replayShown = true;
  if (replayOpener && replayShown && state.replay === null) {
    // the replay viewer closed over the sheet: the focus back where it was
    const at = document.activeElement;
    const lost = at === null || at === document.body || at.closest("[hidden]") !== null;
    if (lost && replayOpener.isConnected) replayOpener.focus();
    replayOpener = null;
    replayShown = false;
  }
  const data = state.profile;
  const current = data !== null && data.offset === ui.profileOffset;
  $("profile-loading").hidden = current;
  $("profile-main").hidden = data === null;
  renderKeyBox();
  const stamp = [data, state.ladder, ui.lang];
  if (stamp.every((v, i) => v === drawn[i])) return;
  drawn = stamp;
  if (data === null) return;
  const t = ui.t;
  $("profile-name").textContent = data.name;
  const you = state.ladder?.you ?? null;
  $("profile-rating").textContent =
    you === null
      ? state.ladder === null
        ? ""
        : t("not_rated")
      : `${t("rating")}: ${ratingText(you.rating)} · ${t("rated_matches", { n: you.rating.matches })}`;
  const puzzles = data.puzzles ?? null;
  $("profile-puzzles").hidden = puzzles === null;
  if (puzzles !== null) {
    const line = t("profile_puzzles", { solved: puzzles.solved, tried: puzzles.tried, rating: puzzles.rating });
    const turns = puzzles.turning_points_week;
    $("profile-puzzles").textContent = turns ? `${line} · ${t("profile_turning", { n: turns })}` : line;
  }
  drawTrend($("profile-trend"), data.rating_history ?? []);
  fillStats(data);
  keepingFocus(() => {
    const best = $("profile-best");
    best.replaceChildren(...(data.best ? [historyItem(data.best)] : [make("li", "help", t("no_history"))]));
    const list = $("profile-matches");
    list.replaceChildren(
      ...(data.matches.length ? data.matches.map(historyItem) : [make("li", "help", t("no_history"))]),
    );
  });
  const from = data.total ? data.offset + 1 : 0;
  const to = data.offset + data.matches.length;
  $("profile-range").textContent = t("matches_range", { from, to, total: data.total });
  button("profile-newer").disabled = data.offset === 0;
  button("profile-older").disabled = to >= data.total;
}

/**
 * Redraw the sheet's lists without losing a person's place: a Replay button that had the
 * focus and is replaced gives it to the new button of the same match in the same list, or,
 * when that match is gone, to the sheet (the focus left on the page would take the next Tab
 * out of the sheet, into the lobby under it).
 * @param {() => void} redraw
 */
function keepingFocus(redraw) {
  const at = document.activeElement;
  const held = at instanceof HTMLElement && $("profile").contains(at) ? at : null;
  const list = held?.closest("ul")?.id;
  const code = held?.dataset.replay;
  redraw();
  if (held === null || held.isConnected) return;
  const again = list && code ? $(list).querySelector(`[data-replay="${CSS.escape(code)}"]`) : null;
  (again instanceof HTMLElement ? again : $("profile-sheet")).focus();
}

/** A share of deals won as the page's language writes it: " (40%)", or none. */
function rate(/** @type {number} */ won, /** @type {number} */ of) {
  if (!of) return "";
  const pct = new Intl.NumberFormat(langTag(ui.lang), { style: "percent", maximumFractionDigits: 0 }).format(won / of);
  return ` (${pct})`;
}

/** The statistics: per mode, per side, points, springs, bombs and rockets. @param {any} p */
function fillStats(p) {
  const t = ui.t;
  /** @type {[string, string][]} */
  const items = [];
  /** @type {Record<string, {played: number, won: number}>} */
  const modes = {};
  for (const m of p.modes) modes[m.mode] = m;
  for (const mode of MODES) {
    const m = modes[mode] ?? { played: 0, won: 0 };
    items.push([t(`mode_${mode}`), t("mode_record", { played: m.played, won: m.won })]);
  }
  const side = (/** @type {number} */ won, /** @type {number} */ n) =>
    n ? t("deals_won", { won, n, pct: rate(won, n) }) : t("no_deals");
  items.push([t("as_landlord"), side(p.landlord_won, p.landlord_deals)]);
  items.push([t("as_farmer"), side(p.farmer_won, p.farmer_deals)]);
  items.push([t("points_title"), t("points_won_lost", { won: p.points_won, lost: p.points_lost })]);
  items.push([t("springs"), String(p.springs)]);
  items.push([t("bombs_played"), String(p.bombs)]);
  items.push([t("rockets_played"), String(p.rockets)]);
  const stats = $("profile-stats");
  stats.replaceChildren(
    ...items.map(([term, value]) => {
      const item = make("div", "stat");
      item.append(make("dt", "", term), make("dd", "", value));
      return item;
    }),
  );
}

/** The code and link for another device: in the page only while shown. */
function renderKeyBox() {
  const key = conn.playerKey;
  const shown = ui.keyShown && key !== null;
  $("key-box").hidden = !shown;
  button("key-show").setAttribute("aria-expanded", String(shown));
  button("key-show").hidden = shown;
  const code = $("key-code");
  const link = /** @type {HTMLAnchorElement} */ ($("key-link"));
  if (!shown || key === null) {
    code.textContent = "";
    link.textContent = "";
    link.removeAttribute("href");
  } else if (code.textContent !== key) {
    code.textContent = key;
    link.href = keyLink(key);
    link.textContent = keyLink(key);
  }
  const confirm = $("new-key-confirm");
  confirm.hidden = !ui.newKeyArmed;
  confirm.textContent = ui.newKeyArmed ? ui.t("new_key_confirm") : "";
  button("new-key").classList.toggle("armed", ui.newKeyArmed);
}

/** After a new key came (`player_key`): the old one works no more. */
export function newKeyCame() {
  ui.newKeyArmed = false;
  toast(ui.t("new_key_done"));
}

export function wireProfile() {
  const sheet = $("profile");
  trapFocus(sheet);
  sheet.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    e.preventDefault();
    if (ui.newKeyArmed) {
      ui.newKeyArmed = false;
      scheduleRender();
    } else closeProfile();
  });
  $("profile-open").addEventListener("click", openProfile);
  $("profile-close").addEventListener("click", closeProfile);
  $("profile-newer").addEventListener("click", () => page(-1));
  $("profile-older").addEventListener("click", () => page(1));
  for (const id of ["profile-best", "profile-matches"]) {
    $(id).addEventListener("click", (e) => {
      const b = /** @type {HTMLElement} */ (e.target).closest("button");
      if (b?.dataset.replay && send({ type: "get_replay", code: b.dataset.replay })) replayOpener = b;
    });
  }
  $("key-show").addEventListener("click", () => {
    ui.keyShown = true;
    scheduleRender();
    requestAnimationFrame(() => button("key-copy").focus());
  });
  $("key-copy").addEventListener("click", (e) => copy(conn.playerKey ?? "", e.currentTarget));
  $("link-copy").addEventListener("click", (e) => copy(keyLink(conn.playerKey ?? ""), e.currentTarget));
  $("new-key").addEventListener("click", () => {
    if (!ui.newKeyArmed) {
      ui.newKeyArmed = true; // asked once more: the old code stops working everywhere
    } else if (send({ type: "new_player_key" })) {
      ui.newKeyArmed = false;
    }
    scheduleRender();
  });
  $("profile-code").addEventListener("click", openCodeDialog);
}

