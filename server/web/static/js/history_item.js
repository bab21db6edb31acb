// @ts-check
// One finished match of mine as a list item, shown in the lobby's history and the profile.

import { ui } from "./page.js";
import { nameOf, signed, when } from "./text.js";

/** One match of mine as a list item: date, mode, deals, totals, result, and Replay.
 * @param {any} e a HistoryEntry */
export function historyItem(e) {
  const t = ui.t;
  const li = document.createElement("li");
  li.dataset.code = e.code;
  const info = document.createElement("span");
  const date = document.createElement("strong");
  date.textContent = when(e.ended_at);
  const result = document.createElement("span");
  result.className = `result ${e.result}`;
  result.textContent = t(`result_${e.result}`);
  const totals = e.totals
    .map((/** @type {number} */ v, /** @type {number} */ i) => {
      const who = e.seats[i] ? nameOf(e.seats[i]) : `${i + 1}`;
      return `${i === e.your_seat ? t("seats_you", { name: who }) : who} ${signed(v)}`;
    })
    .join(", ");
  const line = ` · ${t(`mode_${e.mode}`)} · ${t("deals_played", { n: e.deals, total: e.deals_total })} · `;
  info.append(date, line, result, ` · ${totals}`);
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = t("replay");
  b.dataset.replay = e.code;
  b.setAttribute("aria-label", t("replay_of", { date: when(e.ended_at) }));
  li.append(info, b);
  return li;
}
