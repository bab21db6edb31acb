// @ts-check
// Input: the lobby's forms, the waiting room's and the table's buttons, the sheets' buttons,
// the bar's switches, each turned into a request checked first (the page never sends what
// the server would refuse for its shape); and auto-pass, which passes for me when nothing
// beats the table.

import { cleanName } from "./conn.js";
import { copy } from "./clipboard.js";
import { wireChat } from "./chat.js";
import { showDialog, trapFocus } from "./dialogs.js";
import { $, button, input } from "./dom.js";
import { LANGS, LANG_NAMES } from "./i18n.js";
import { CODE_RE, actOnLink, enterPending, listRooms, readLink } from "./lobby.js";
import { conn, dispatch, hand, renderNow, scheduleRender, send, state, toast, ui } from "./page.js";
import { prefs, savePrefs } from "./prefs.js";
import { setMotion } from "./motion.js";
import { closeReplay, replayMove } from "./replay_view.js";
import { applyLanguage, tick } from "./screens.js";
import { cardRank } from "./rules.js";
import { setSound } from "./sound.js";
import { hintOptionsSoon } from "./hints.js";
import { cardsFor, legalBids, mySeat, myTurn, nothingBeats, verdict } from "./state.js";
import { playName } from "./text.js";

/** @typedef {import("./i18n.js").Lang} Lang */

/** Milliseconds auto-pass waits before it passes: the play it passes on is seen first. */
const AUTO_PASS_PAUSE = 400;
const LEVELS = ["easy", "normal", "strong"];
const SPEEDS = ["instant", "fast", "normal", "slow"];

/** Auto-pass (when switched on): on my play turn with nothing in my hand that beats the
 * table, pass at once and say so. Once a turn. */
export function autoPass() {
  if (!prefs.autoPass || ui.busy !== null) return;
  const other = nothingBeats(state);
  const turn = myTurn(state);
  if (!other || !turn) return;
  const key = `${state.room.code}:${turn.version}`;
  if (ui.autoPassed === key) return;
  ui.autoPassed = key;
  toast(ui.t("auto_passed", { play: playName(other) }));
  // a moment to see the play it passes on; then pass, if the turn is still this one
  setTimeout(() => {
    const now = myTurn(state);
    if (!prefs.autoPass || !now || now.version !== turn.version || ui.busy !== null) return;
    if (send({ type: "pass", version: turn.version }, true)) hand.clear();
  }, AUTO_PASS_PAUSE);
}

/** @param {HTMLFormElement} form @param {string} name */
function radio(form, name) {
  const el = /** @type {HTMLInputElement | null} */ (form.querySelector(`input[name=${name}]:checked`));
  return el ? Number(el.value) : NaN;
}

/** @param {HTMLFormElement} form @param {string} name @param {string | number} value */
function setField(form, name, value) {
  const el = form.elements.namedItem(name);
  if (el instanceof RadioNodeList) el.value = String(value);
  else if (el instanceof HTMLInputElement && el.type === "checkbox") el.checked = Boolean(value);
  else if (el instanceof HTMLSelectElement || el instanceof HTMLInputElement) el.value = String(value);
}

/** The lobby's forms as this browser last used them. */
export function restoreForms() {
  const practice = /** @type {HTMLFormElement} */ ($("practice-form"));
  setField(practice, "deals", prefs.practice.deals);
  setField(practice, "level", prefs.practice.level);
  setField(practice, "speed", prefs.practice.speed);
  const create = /** @type {HTMLFormElement} */ ($("create-form"));
  setField(create, "deals", prefs.create.deals);
  setField(create, "public", prefs.create.public ? 1 : 0);
}

/** A checkbox kept in the preferences; `then` runs after each change. */
function prefToggle(
  /** @type {string} */ id,
  /** @type {"counter" | "mute" | "autoPass" | "smartPick"} */ key,
  /** @type {() => void} */ then = () => {},
) {
  const box = input(id);
  box.checked = prefs[key];
  box.addEventListener("change", () => {
    prefs[key] = box.checked;
    savePrefs();
    then();
    renderNow();
  });
}

/** The settings panel: opened from the bar, closed by its button, Escape or a tap outside. */
function wireSettings() {
  const panel = $("settings");
  const opener = button("settings-open");
  const show = (/** @type {boolean} */ open) => {
    panel.hidden = !open;
    opener.setAttribute("aria-expanded", String(open));
    if (open) /** @type {HTMLElement | null} */ (panel.querySelector("input, select"))?.focus();
  };
  opener.addEventListener("click", () => show(panel.hidden !== false));
  $("settings-close").addEventListener("click", () => {
    show(false);
    opener.focus();
  });
  panel.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    show(false);
    opener.focus();
  });
  document.addEventListener("pointerdown", (e) => {
    const target = /** @type {Node} */ (e.target);
    if (!panel.hidden && !panel.contains(target) && !opener.contains(target)) show(false);
  });
  const motion = input("motion-toggle");
  motion.checked = prefs.motion;
  motion.addEventListener("change", () => setMotion(motion.checked));
  const sound = button("sound-toggle");
  sound.addEventListener("click", () => {
    setSound(!prefs.sound);
    renderNow();
  });
}

/** The bar: the language menu and the card counter's switch. */
function wireBar() {
  // the bar's language menu, and the settings' (the bar's place on a phone's table)
  const menus = ["lang", "lang-settings"].map((id) => /** @type {HTMLSelectElement} */ ($(id)));
  for (const menu of menus) {
    for (const l of LANGS) {
      const o = document.createElement("option");
      o.value = l;
      o.textContent = LANG_NAMES[l];
      menu.append(o);
    }
    menu.value = ui.lang;
    menu.addEventListener("change", () => {
      ui.lang = /** @type {Lang} */ (menu.value);
      for (const other of menus) other.value = ui.lang;
      prefs.lang = ui.lang;
      applyLanguage();
      if (!prefs.named) {
        // a name this browser did not choose follows the language (Player 123, 玩家123),
        // at the table too once the player's next session says it
        const name = ui.t("default_name", { n: /\d+/.exec(prefs.name)?.[0] ?? "100" });
        if (name !== prefs.name) {
          prefs.name = name;
          if (state.room === null && state.conn === "open") conn.rename();
        }
      }
      savePrefs();
      labelKeys();
    });
  }
  prefToggle("counter-toggle", "counter");
  $("leave").addEventListener("click", () => {
    const table = state.room?.table;
    const inPlay = table && mySeat(state) !== null && table.phase !== "over";
    if (inPlay && !ui.leaveArmed) {
      ui.leaveArmed = true;
      setTimeout(() => {
        ui.leaveArmed = false;
        scheduleRender();
      }, 4000);
      scheduleRender();
      return;
    }
    ui.leaveArmed = false;
    send({ type: "leave" });
  });
}

/** The lobby: my name, practice, quick match, a private room, a code, the lists. */
function wireLobby() {
  $("name-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const name = cleanName(input("name").value);
    input("name").value = name;
    const changed = name !== prefs.name;
    prefs.name = name;
    prefs.named = true;
    savePrefs();
    if (changed && state.room === null) {
      conn.rename(); // a name belongs to a session: the player's next one
      toast(ui.t("name_saved"));
    } else if (ui.pending) enterPending();
    scheduleRender();
  });
  $("join-prompt-btn").addEventListener("click", () => {
    const name = cleanName(input("name").value);
    if (name !== prefs.name) {
      prefs.name = name;
      prefs.named = true;
      savePrefs();
      conn.rename(); // the link is acted on after the new hello
      return;
    }
    prefs.named = true;
    savePrefs();
    enterPending();
  });
  $("practice-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const form = /** @type {HTMLFormElement} */ (e.currentTarget);
    const deals = radio(form, "deals");
    const level = String(/** @type {HTMLSelectElement} */ (form.elements.namedItem("level")).value);
    const speed = String(/** @type {HTMLSelectElement} */ (form.elements.namedItem("speed")).value);
    if (![1, 3, 6, 9].includes(deals) || !LEVELS.includes(level) || !SPEEDS.includes(speed)) return;
    prefs.practice = { deals, level, speed };
    savePrefs();
    send({ type: "start_practice", deals, level, speed });
  });
  $("create-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const form = /** @type {HTMLFormElement} */ (e.currentTarget);
    const deals = radio(form, "deals");
    const pub = /** @type {HTMLInputElement} */ (form.elements.namedItem("public")).checked;
    const rated = /** @type {HTMLInputElement} */ (form.elements.namedItem("rated")).checked;
    if (![3, 6, 9].includes(deals)) return;
    prefs.create = { deals, public: pub };
    savePrefs();
    send({ type: "create_room", deals, public: pub, rated });
  });
  const code = () => input("code").value.trim().toUpperCase();
  $("code-form").addEventListener("submit", (e) => {
    e.preventDefault();
    if (CODE_RE.test(code())) send({ type: "join_room", code: code() });
  });
  $("watch-btn").addEventListener("click", () => {
    if (CODE_RE.test(code())) send({ type: "watch", code: code() });
    else input("code").reportValidity();
  });
  input("code").addEventListener("input", () => {
    const el = input("code");
    const clean = el.value.replace(/[^A-Za-z0-9-]/g, "").toUpperCase().slice(0, 24);
    if (clean !== el.value) el.value = clean;
  });
  $("rooms").addEventListener("click", (e) => {
    const b = /** @type {HTMLElement} */ (e.target).closest("button");
    if (b?.dataset.code) send({ type: "watch", code: b.dataset.code });
  });
  $("history").addEventListener("click", (e) => {
    const b = /** @type {HTMLElement} */ (e.target).closest("button");
    if (b?.dataset.replay) send({ type: "get_replay", code: b.dataset.replay });
  });
  $("quick-start").addEventListener("click", () => send({ type: "quick_match" }));
  $("quick-cancel").addEventListener("click", () => send({ type: "leave_queue" }));
}

/** The waiting room: copy the code or link, seat a bot, ready. */
function wireWaiting() {
  $("copy-code").addEventListener("click", (e) => copy(state.room?.code ?? "", e.currentTarget));
  $("copy-link").addEventListener("click", (e) =>
    copy(`${location.origin}/#/join/${state.room?.code ?? ""}`, e.currentTarget),
  );
  $("seat-bot").addEventListener("click", () => {
    const level = /** @type {HTMLSelectElement} */ ($("bot-level")).value;
    if (LEVELS.includes(level)) send({ type: "seat_bot", level });
  });
  $("wait-ready").addEventListener("click", () => send({ type: "ready" }, true));
}

/** Hint: the next legal play that beats the table (then pass), picked in the hand. */
async function hint() {
  const turn = myTurn(state);
  if (!turn) return;
  const soon = hintOptionsSoon();
  const options = Array.isArray(soon) ? soon : await soon;
  if (!options.length || myTurn(state)?.version !== turn.version) return;
  const key = `${turn.version}:${state.room.table.hand.join(",")}`;
  ui.hintIndex = key === ui.hintKey ? (ui.hintIndex + 1) % options.length : 0;
  ui.hintKey = key;
  const option = options[ui.hintIndex];
  if (option === null) {
    hand.pick([]);
    ui.hintPass = true; // after pick: a pick clears it
  } else {
    hand.pick(cardsFor(state.room.table.hand, option.cards));
    ui.hintPass = false;
  }
  renderNow();
}

/** The table: bids, Play, Pass, Hint, taking my seat back, the bots' speed, the tools. */
function wireTable() {
  for (const b of [0, 1, 2, 3]) {
    $(`bid-${b}`).addEventListener("click", () => {
      const turn = myTurn(state);
      if (!turn || turn.action !== "bid") return;
      if (b === 0) send({ type: "pass", version: turn.version }, true);
      else if (legalBids(state).includes(b)) send({ type: "bid", value: b, version: turn.version }, true);
      hand.focusCard(); // the bid buttons go: the focus stays at the table
    });
  }
  // Play, Pass and Hint act on the hand: the focus goes back to it
  $("play").addEventListener("click", () => {
    const turn = myTurn(state);
    const v = verdict(state, hand.selected);
    if (!turn || v.level !== "ok") return;
    const ranks = [...hand.selected].map(cardRank).sort((a, b) => a - b);
    if (send({ type: "play", ranks, version: turn.version }, true)) hand.clear();
    hand.focusCard();
  });
  $("pass").addEventListener("click", () => {
    const turn = myTurn(state);
    if (!turn || !turn.may_pass) return;
    if (send({ type: "pass", version: turn.version }, true)) hand.clear();
    hand.focusCard();
  });
  $("hint").addEventListener("click", () => {
    hand.focusCard();
    void hint();
  });
  $("resume").addEventListener("click", () => send({ type: "resume" }));
  $("speed").addEventListener("change", () => {
    const speed = /** @type {HTMLSelectElement} */ ($("speed")).value;
    if (SPEEDS.includes(speed)) send({ type: "set_bot_speed", speed });
  });
  $("summary-ready").addEventListener("click", () => send({ type: "ready" }, true));
  wireChat();
  prefToggle("mute-toggle", "mute");
  prefToggle("autopass-toggle", "autoPass", autoPass);
  prefToggle("smartpick-toggle", "smartPick");
  wireKeys();
}

/** Keys of the table, outside its text boxes and menus: Play, Pass and Hint by a letter of
 * the page's language (P, S, H in English; S, P, T in German: Spielen, Passen, Tipp), 0-3
 * bid, ? the keys' help; each a button's click, so only what the button may do now. */
function tableKeys() {
  /** @type {Record<string, string>} */
  const keys = { 0: "bid-0", 1: "bid-1", 2: "bid-2", 3: "bid-3" };
  for (const id of ["play", "pass", "hint"]) keys[ui.t(`key_${id}`).toLowerCase()] = id;
  return keys;
}

/** The table's keys in the page's language: in the keys' help, and on the buttons for
 * assistive technology (aria-keyshortcuts). */
export function labelKeys() {
  const key = (/** @type {string} */ id) => ui.t(`key_${id}`);
  $("keys-play").textContent = ui.t("keys_play", { play: key("play"), pass: key("pass"), hint: key("hint") });
  for (const id of ["play", "pass", "hint"]) button(id).setAttribute("aria-keyshortcuts", ui.t(`key_${id}`));
  for (const b of [0, 1, 2, 3]) button(`bid-${b}`).setAttribute("aria-keyshortcuts", String(b));
}

function wireKeys() {
  const help = $("keys");
  trapFocus(help);
  for (const id of ["summary", "result", "replay"]) trapFocus($(id));
  const openHelp = () => showDialog(help, true, button("keys-close"));
  $("keys-open").addEventListener("click", () => {
    // from the settings panel: it closes, and the focus comes back to its opener
    $("settings").hidden = true;
    button("settings-open").setAttribute("aria-expanded", "false");
    button("settings-open").focus();
    openHelp();
  });
  $("keys-close").addEventListener("click", () => showDialog(help, false));
  help.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    e.preventDefault();
    showDialog(help, false);
  });
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || document.body.dataset.screen !== "table") return;
    const at = /** @type {HTMLElement} */ (e.target);
    if (at.closest("input, select, textarea, [role=dialog]:not([hidden])")) return;
    if (document.querySelector(".overlay:not([hidden])")) return;
    if (e.key === "?") {
      e.preventDefault();
      openHelp();
      return;
    }
    const id = tableKeys()[e.key.toLowerCase()];
    const target = id ? button(id) : null;
    if (!target || target.disabled || target.closest("[hidden]")) return;
    e.preventDefault();
    target.click();
  });
}

/** After the match: again with the same seats, its replay, or the lobby; a rematch offer. */
function wireAfter() {
  $("again").addEventListener("click", () => {
    const code = state.room?.code;
    if (code && state.closed === "match_over") send({ type: "rematch", code }, true);
  });
  $("result-replay").addEventListener("click", () => {
    if (state.room?.code) send({ type: "get_replay", code: state.room.code });
  });
  $("to-lobby").addEventListener("click", () => {
    const mode = state.room?.mode;
    dispatch({ type: "_lobby" });
    restoreForms();
    requestAnimationFrame(() => {
      const target = mode === "practice" ? "practice-start" : mode === "private" ? "create-start" : "quick-start";
      button(target).focus();
    });
  });
  $("rematch-accept").addEventListener("click", () => {
    const r = state.rematch;
    if (!r) return;
    send({ type: "rematch", code: r.code }, true);
  });
  $("rematch-dismiss").addEventListener("click", () => dispatch({ type: "_rematch_dismissed" }));
}

/** The replay viewer: buttons and keys. */
function wireReplay() {
  $("replay-close").addEventListener("click", closeReplay);
  $("replay-first").addEventListener("click", () => replayMove({ step: "first" }));
  $("replay-prev").addEventListener("click", () => replayMove({ step: -1 }));
  $("replay-next").addEventListener("click", () => replayMove({ step: 1 }));
  $("replay-last").addEventListener("click", () => replayMove({ step: "last" }));
  $("replay-deal-prev").addEventListener("click", () => replayMove({ deal: -1 }));
  $("replay-deal-next").addEventListener("click", () => replayMove({ deal: 1 }));
  $("replay").addEventListener("keydown", (e) => {
    /** @type {Record<string, Parameters<typeof replayMove>[0]>} */
    const keys = {
      ArrowRight: { step: 1 },
      ArrowLeft: { step: -1 },
      Home: { step: "first" },
      End: { step: "last" },
      ArrowDown: { deal: 1 },
      PageDown: { deal: 1 },
      ArrowUp: { deal: -1 },
      PageUp: { deal: -1 },
    };
    if (e.key === "Escape") closeReplay();
    else if (keys[e.key]) replayMove(keys[e.key]);
    else return;
    e.preventDefault();
  });
}

/** The connection's buttons, links in the address, and the clocks that run on. */
function wireWindow() {
  $("retry").addEventListener("click", () => conn.retryNow());
  $("reload").addEventListener("click", () => location.reload());
  window.addEventListener("online", () => conn.retryNow());
  window.addEventListener("hashchange", () => {
    readLink();
    if (state.conn === "open" && !state.room) actOnLink();
    scheduleRender();
  });
  setInterval(tick, 250);
  setInterval(() => {
    if (!state.room && state.conn === "open" && !document.hidden) listRooms();
  }, 5000);
}

/** Every input of the page, once at start. */
export function wire() {
  wireSettings();
  wireBar();
  wireLobby();
  wireWaiting();
  wireTable();
  wireAfter();
  wireReplay();
  wireWindow();
}
