// @ts-check
// Cards on screen: one card's element, and the hand, a multi-select listbox you pick from
// by tap, swipe (pointer events: mouse, pen and touch alike) or keyboard (roving tabindex:
// Tab to the hand, left/right to move, Enter or Space to pick, Esc to unpick all), as
// WAI-ARIA's listbox. A swipe or tap that picked cards may be refined when it ends (smart
// pick: the play in them, chosen by the page).

import { cardRank, cardSuit, classify, mainFirst } from "./rules.js";
import { cardName, jokerFace } from "./i18n.js";

const FACE = Object.freeze({
  3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10",
  11: "J", 12: "Q", 13: "K", 14: "A", 15: "2",
});

/** @typedef {import("./i18n.js").Translate} Translate */

/**
 * Fill an element with a card's face: its rank and suit (a joker as the page's language
 * names it), red for hearts, diamonds and the big joker, and its spoken name as the
 * accessible name.
 * @param {HTMLElement} el
 * @param {number} id card id 0..53
 * @param {Translate} t
 */
function paint(el, id, t) {
  const suit = cardSuit(id);
  const red = suit === "♥" || suit === "♦" || id === 53;
  const picked = el.classList.contains("picked");
  el.className = `card${red ? " red" : ""}${id >= 52 ? " joker" : ""}${picked ? " picked" : ""}`;
  el.dataset.card = String(id);
  el.setAttribute("aria-label", cardName(t, id));
  el.replaceChildren();
  const rank = document.createElement("span");
  rank.className = "rank";
  rank.textContent = id >= 52 ? jokerFace(t, id) : FACE[/** @type {keyof typeof FACE} */ (cardRank(id))];
  // a joker's Chinese face (小王) stands one character a line, upright
  if (id >= 52 && /[\u3400-\u9fff]/.test(rank.textContent)) rank.classList.add("stack");
  const pip = document.createElement("span");
  pip.className = "suit";
  pip.textContent = suit ?? (id === 53 ? "★" : "☆");
  pip.setAttribute("aria-hidden", "true");
  rank.setAttribute("aria-hidden", "true");
  el.append(rank, pip);
}

/**
 * A face-up card that is only shown (plays, the kitty, the summary).
 * @param {number} id
 * @param {Translate} t
 */
export function cardElement(id, t) {
  const el = document.createElement("span");
  paint(el, id, t);
  el.setAttribute("role", "img");
  return el;
}

/**
 * A row of face-up cards in a container (replacing what it held).
 * @param {HTMLElement} box
 * @param {number[]} ids
 * @param {Translate} t
 */
export function showCards(box, ids, t) {
  box.replaceChildren(...[...ids].sort((a, b) => a - b).map((id) => cardElement(id, t)));
}

/**
 * A play's cards in a container, the main part first as people lay it down (Q Q Q 3, not
 * 3 Q Q Q); cards that are no play in rank order.
 * @param {HTMLElement} box
 * @param {number[]} ids
 * @param {Translate} t
 */
export function showPlay(box, ids, t) {
  const sorted = [...ids].sort((a, b) => a - b);
  const play = classify(sorted.map(cardRank));
  if (play === null) {
    box.replaceChildren(...sorted.map((id) => cardElement(id, t)));
    return;
  }
  const pool = [...sorted];
  const ordered = mainFirst(play).map((rank) => {
    const i = pool.findIndex((id) => cardRank(id) === rank);
    return pool.splice(i, 1)[0];
  });
  box.replaceChildren(...ordered.map((id) => cardElement(id, t)));
}

export class Hand {
  /**
   * @param {HTMLElement} el the listbox
   * @param {(selected: Set<number>) => void} onChange called after every pick or unpick
   */
  constructor(el, onChange) {
    this.el = el;
    this.onChange = onChange;
    /** @type {number[]} */
    this.cards = [];
    /** @type {Set<number>} */
    this.selected = new Set();
    this.focus = 0;
    this.enabled = false;
    /** @type {null | "pick" | "unpick"} */
    this.swipe = null;
    /** @type {Set<number>} the cards the pointer gesture under way picked */
    this.gesture = new Set();
    /**
     * Smart pick: given the picks after a swipe or tap and the cards it picked, the cards
     * to pick instead, or null to keep them (set by the page; null: never).
     * @type {null | ((selected: Set<number>, gesture: Set<number>) => number[] | null)}
     */
    this.refine = null;
    /** @type {Map<number, HTMLElement>} */
    this.nodes = new Map();
    /** @type {Translate} */
    this.t = (k) => k;
    el.addEventListener("pointerdown", (e) => this.down(e));
    el.addEventListener("pointermove", (e) => this.move(e));
    el.addEventListener("pointerup", () => this.end(true));
    for (const type of ["pointercancel", "lostpointercapture"]) {
      el.addEventListener(type, () => this.end(false));
    }
    el.addEventListener("keydown", (e) => this.key(e));
  }

  /** @param {EventTarget | null} target */
  cardAt(target) {
    const node = target instanceof Element ? target.closest(".card") : null;
    if (!node || !this.el.contains(node)) return null;
    return Number(/** @type {HTMLElement} */ (node).dataset.card);
  }

  /** @param {PointerEvent} e */
  down(e) {
    if (!this.enabled || e.button > 0) return;
    const id = this.cardAt(e.target);
    if (id === null) return;
    e.preventDefault();
    // A swipe that starts on a picked card unpicks; else it picks.
    this.swipe = this.selected.has(id) ? "unpick" : "pick";
    this.gesture = new Set();
    this.focus = this.cards.indexOf(id);
    this.el.setPointerCapture?.(e.pointerId);
    this.apply(id);
  }

  /** @param {PointerEvent} e */
  move(e) {
    if (this.swipe === null) return;
    const id = this.cardAt(document.elementFromPoint(e.clientX, e.clientY));
    if (id !== null) this.apply(id);
  }

  /**
   * The pointer is up (`done`) or lost: a gesture that picked cards may be refined.
   * @param {boolean} done
   */
  end(done) {
    const picking = this.swipe === "pick";
    this.swipe = null;
    const gesture = this.gesture;
    this.gesture = new Set();
    if (!done || !picking || gesture.size === 0 || this.refine === null) return;
    const ids = this.refine(new Set(this.selected), gesture);
    if (ids !== null) this.pick(ids);
  }

  /** @param {number} id */
  apply(id) {
    const had = this.selected.has(id);
    if (this.swipe === "pick" && !had) {
      this.selected.add(id);
      this.gesture.add(id);
    } else if (this.swipe === "unpick" && had) this.selected.delete(id);
    else return;
    this.paintSelection();
    this.onChange(this.selected);
  }

  /** @param {KeyboardEvent} e */
  key(e) {
    if (!this.cards.length) return;
    let focus = this.focus;
    if (e.key === "ArrowLeft" || e.key === "ArrowUp") focus -= 1;
    else if (e.key === "ArrowRight" || e.key === "ArrowDown") focus += 1;
    else if (e.key === "Home") focus = 0;
    else if (e.key === "End") focus = this.cards.length - 1;
    else if (e.key === "Escape" && this.selected.size > 0) {
      e.preventDefault();
      this.clear();
      return;
    }
    else if (e.key === "Enter" || e.key === " " || e.key === "Spacebar") {
      e.preventDefault();
      if (!this.enabled) return;
      this.toggle(this.cards[this.focus]);
      return;
    } else return;
    e.preventDefault();
    this.focus = Math.max(0, Math.min(this.cards.length - 1, focus));
    this.paintFocus(true);
  }

  /** @param {number} id */
  toggle(id) {
    if (this.selected.has(id)) this.selected.delete(id);
    else this.selected.add(id);
    this.paintSelection();
    this.onChange(this.selected);
  }

  /**
   * Pick exactly these cards (a hint), or none.
   * @param {Iterable<number>} ids
   */
  pick(ids) {
    this.selected = new Set(ids);
    this.paintSelection();
    this.onChange(this.selected);
  }

  /**
   * Show these cards (sorted), keeping the picks and the focus on cards still held.
   * @param {number[]} cards
   * @param {boolean} enabled whether picking is possible now
   * @param {Translate} t
   */
  set(cards, enabled, t) {
    const relabel = t !== this.t;
    this.t = t;
    this.enabled = enabled;
    this.el.setAttribute("aria-disabled", String(!enabled));
    const same =
      cards.length === this.cards.length && cards.every((c, i) => c === this.cards[i]);
    // the keyboard focus stays in the hand while its cards change (a play leaves it)
    const inside = this.el.contains(document.activeElement);
    if (!same) {
      const focused = this.cards[this.focus];
      const held = new Set(cards);
      for (const id of [...this.selected]) if (!held.has(id)) this.selected.delete(id);
      /** @type {HTMLElement[]} */
      const nodes = [];
      const next = new Map();
      for (const id of cards) {
        let node = this.nodes.get(id);
        if (!node) {
          node = document.createElement("div");
          paint(node, id, t);
          node.setAttribute("role", "option");
        }
        next.set(id, node);
        nodes.push(node);
      }
      this.nodes = next;
      this.el.replaceChildren(...nodes);
      this.el.style.setProperty("--n", String(cards.length));
      const keep = cards.indexOf(focused);
      this.cards = [...cards];
      this.focus = keep >= 0 ? keep : Math.min(this.focus, Math.max(0, cards.length - 1));
    } else if (relabel) {
      for (const [id, node] of this.nodes) paint(node, id, t);
    }
    this.paintSelection();
    this.paintFocus(inside && !this.el.contains(document.activeElement));
  }

  paintSelection() {
    for (const [id, node] of this.nodes) {
      const on = this.selected.has(id);
      node.classList.toggle("picked", on);
      node.setAttribute("aria-selected", String(on));
    }
  }

  /** @param {boolean} move whether to move the keyboard focus there */
  paintFocus(move) {
    this.cards.forEach((id, i) => {
      const node = /** @type {HTMLElement} */ (this.nodes.get(id));
      node.tabIndex = i === this.focus ? 0 : -1;
      if (move && i === this.focus) node.focus();
    });
  }

  /** Put the keyboard focus on the hand's current card (after a button acted on it). */
  focusCard() {
    if (this.cards.length) this.paintFocus(true);
  }

  clear() {
    if (this.selected.size === 0) return;
    this.selected.clear();
    this.paintSelection();
    this.onChange(this.selected);
  }
}
