// @ts-check
// Quick chat: the phrases and emotes (protocol/chat.py), the panel that sends them, the
// bubble by a seat, and what a screen reader hears of them. Muted chat hides others' lines.

import { $, button, make } from "./dom.js";
import { conn, renderNow, state, ui } from "./page.js";
import { prefs } from "./prefs.js";
import { mySeat } from "./state.js";
import { seatName } from "./text.js";

/** The quick-chat phrases, then its emotes with the face each shows. */
const PHRASES = Object.freeze([
  "hello", "good_luck", "well_played", "nice_bomb", "hurry_up", "oops", "sorry", "thanks",
  "good_game", "one_more", "bye",
]);
const EMOTES = Object.freeze({
  smile: "🙂", laugh: "😄", cry: "😢", angry: "😠", thumbs_up: "👍", surprised: "😮",
});
/** Seconds a chat bubble stays by its seat. */
const BUBBLE_SECONDS = 4;

/** A phrase's face, for an emote. @param {string} phrase */
function faceOf(phrase) {
  return /** @type {Record<string, string>} */ (EMOTES)[phrase];
}

/** A phrase's text in the page's language (an emote: its face). @param {string} phrase */
export function phraseText(phrase) {
  const face = faceOf(phrase);
  return face ? `${face} ${ui.t(`phrase_${phrase}`)}` : ui.t(`phrase_${phrase}`);
}

/** Whether a line said is still shown by its seat. @param {{at: number}} said */
export function bubbleLive(said) {
  return performance.now() / 1000 - said.at < BUBBLE_SECONDS;
}

/** The bubble by a seat, when it said something a moment ago (and chat is not muted). */
export function bubbleFor(/** @type {number} */ seat) {
  const said = state.said[seat];
  if (!said || !bubbleLive(said) || (prefs.mute && seat !== mySeat(state))) return null;
  const face = faceOf(said.phrase);
  const bubble = make("div", `bubble${face ? " emote" : ""}`);
  bubble.dataset.phrase = said.phrase;
  if (face) {
    bubble.textContent = face;
    bubble.title = ui.t(`phrase_${said.phrase}`);
  } else bubble.textContent = ui.t(`phrase_${said.phrase}`);
  return bubble;
}

/** A chat line said: read out (mine always, others' unless muted). @param {{seat: number, phrase: string}} msg */
export function sayAloud(msg) {
  if (!state.room) return;
  const mine = msg.seat === mySeat(state);
  if (!prefs.mute || mine) {
    $("chat-announce").textContent = ui.t("said", { name: seatName(msg.seat), text: phraseText(msg.phrase) });
  }
}

/** The chat panel's buttons, in the page's language: the phrases, then the emotes. */
export function fillChat() {
  const t = ui.t;
  $("chat-phrases").replaceChildren(
    ...PHRASES.map((p) => {
      const b = make("button", "", t(`phrase_${p}`));
      b.type = "button";
      b.dataset.phrase = p;
      return b;
    }),
  );
  $("chat-emotes").replaceChildren(
    ...Object.entries(EMOTES).map(([p, face]) => {
      const b = make("button", "", face);
      b.type = "button";
      b.dataset.phrase = p;
      b.setAttribute("aria-label", t(`phrase_${p}`));
      b.title = t(`phrase_${p}`);
      return b;
    }),
  );
}

function closeChat() {
  $("chat-panel").hidden = true;
  renderNow();
  button("chat-open").focus();
}

/** The chat button, the panel's keys and phrases. */
export function wireChat() {
  $("chat-open").addEventListener("click", () => {
    const panel = $("chat-panel");
    panel.hidden = !panel.hidden;
    renderNow();
    if (!panel.hidden) /** @type {HTMLElement | null} */ (panel.querySelector("button[data-phrase]"))?.focus();
  });
  $("chat-close").addEventListener("click", () => closeChat());
  $("chat-panel").addEventListener("keydown", (e) => {
    if (e.key === "Escape") closeChat();
  });
  $("chat-panel").addEventListener("click", (e) => {
    const b = /** @type {HTMLElement} */ (e.target).closest("button");
    if (!b?.dataset.phrase) return;
    const id = conn.send({ type: "chat", phrase: b.dataset.phrase });
    if (id !== null) ui.chatRequest = id;
    closeChat();
  });
}
