// @ts-check
// The page's picture of the server: a pure reducer from server messages (and the socket's
// own comings and goings) to state, like client/table.py for the terminal client.
//
// `reduce(state, message, now)` returns the next state and never mutates the one it is given;
// `now` is the local monotonic time in seconds (performance.now() / 1000) the message
// arrived, used only to count deadlines down on the local clock. Selectors below read what
// the table shows (seat order, the current trick, the card counter, whose turn) and what a
// pick of cards would be (legality, hints). No DOM and no socket here: node tests drive it.

import { cardRank, classify, beats, hintPlays, legalPlays, smartPick, RANKS } from "./rules.js";

export const SEATS = 3;

/**
 * @typedef {{[field: string]: any}} Msg  a decoded server message
 * @typedef {{deadline: number, serverTime: number, received: number}} Countdown
 * @typedef {{cards: number[], kind: string} | "pass" | null} TrickSlot
 * @typedef {{
 *   conn: "connecting" | "open" | "reconnecting" | "down" | "outdated" | "refused" | "elsewhere",
 *   retryIn: number | null,
 *   me: {playerId: string, name: string} | null,
 *   live: boolean,
 *   room: any,
 *   countdown: Countdown | null,
 *   trick: TrickSlot[],
 *   trickOver: boolean,
 *   voids: number,
 *   result: Msg | null,
 *   closed: string | null,
 *   notice: string | null,
 *   queue: {wait: number, waiting: number, since: number} | null,
 *   rooms: Msg[] | null,
 *   error: {code: string, message: string, requestId: number | null, at: number} | null,
 *   said: ({phrase: string, at: number} | null)[],
 *   rematch: {code: string, seat: number, name: string | null, countdown: Countdown} | null,
 *   replay: Msg | null,
 *   review: Msg | null,
 *   history: Msg[] | null,
 *   paused: boolean,
 *   profile: Msg | null,
 *   ladder: Msg | null,
 *   ratingChange: Msg | null,
 *   publicProfile: Msg | null,
 * }} State
 */

/** @returns {State} */
export function initialState() {
  return {
    conn: "connecting",
    retryIn: null,
    me: null,
    live: false,
    room: null,
    countdown: null,
    trick: [null, null, null],
    trickOver: false,
    voids: 0,
    result: null,
    closed: null,
    notice: null,
    queue: null,
    rooms: null,
    error: null,
    said: [null, null, null],
    rematch: null,
    replay: null,
    review: null,
    history: null,
    paused: false,
    profile: null,
    ladder: null,
    ratingChange: null,
    publicProfile: null,
  };
}

/**
 * @param {number | null | undefined} deadline
 * @param {number} serverTime
 * @param {number} now
 * @returns {Countdown | null}
 */
function countdownOf(deadline, serverTime, now) {
  return deadline === null || deadline === undefined
    ? null
    : { deadline, serverTime, received: now };
}

/** Seconds left of a countdown at local time `now` (never below zero). */
export function secondsLeft(/** @type {Countdown | null} */ cd, /** @type {number} */ now) {
  if (cd === null) return null;
  return Math.max(0, cd.deadline - cd.serverTime - (now - cd.received));
}

/**
 * The current trick, seat by seat, from a table's plays and passes (a snapshot's).
 * @param {Msg} table
 * @returns {{trick: TrickSlot[], trickOver: boolean}}
 */
export function trickOf(table) {
  /** @type {TrickSlot[]} */
  let trick = [null, null, null];
  let over = false;
  let inRow = 0;
  /** @type {Msg[]} */
  const plays = table.plays ?? [];
  /** @type {number[][]} */
  const passes = table.passes ?? [];
  let p = 0;
  plays.forEach((/** @type {Msg} */ play, /** @type {number} */ i) => {
    if (over) trick = [null, null, null];
    over = false;
    inRow = 0;
    trick[play.seat] = { cards: play.cards, kind: play.kind };
    while (p < passes.length && passes[p][1] === i + 1) {
      trick[passes[p][0]] = "pass";
      inRow += 1;
      if (inRow === 2) over = true;
      p += 1;
    }
  });
  return { trick, trickOver: over };
}

/**
 * A room view made current, or a fresh one from a snapshot.
 * @param {State} state
 * @param {Msg} room
 * @param {number} now
 * @returns {State}
 */
function fromRoom(state, room, now) {
  const table = room.table;
  let countdown = null;
  let result = null;
  let trick = /** @type {TrickSlot[]} */ ([null, null, null]);
  let trickOver = false;
  if (table) {
    // a turn's clock, or between deals when the next deal starts regardless
    const clock = table.turn ?? table.awaiting;
    if (clock) countdown = countdownOf(clock.deadline, clock.server_time, now);
    if (table.phase === "over" && table.winners) {
      result = {
        type: "match_end",
        totals: table.totals,
        winners: table.winners,
        deal_scores: table.deal_scores,
      };
    }
    ({ trick, trickOver } = trickOf(table));
  }
  return {
    ...state,
    room,
    live: true,
    countdown,
    trick,
    trickOver,
    voids: 0,
    result,
    closed: null,
    queue: null,
    // a room of its own: the last one's chat is gone, and a rematch offer is answered
    said: state.room?.code === room.code ? state.said : [null, null, null],
    rematch: null,
    paused: state.room?.code === room.code && state.paused,
  };
}

/**
 * @param {State} state
 * @param {Msg} changes fields of the table to replace
 * @param {Partial<State>} [more] fields of the state to replace
 * @returns {State}
 */
function withTable(state, changes, more = {}) {
  return { ...state, room: { ...state.room, table: { ...state.room.table, ...changes } }, ...more };
}

/**
 * The next state after one message.
 * @param {State} state
 * @param {Msg} msg a server message, or one of the socket's: `_open`, `_closed`,
 *   `_down` (with `retryIn` seconds), `_outdated`, `_key_refused` (this browser's player key
 *   was refused), `_elsewhere` (another tab or device took this player's session over),
 *   `_dismiss` (forget the error/notice),
 *   `_lobby` (leave a finished room's result screen), `_replay_closed` (the replay viewer
 *   closed: its hands are dropped), `_rematch_dismissed` (the rematch offer put away)
 * @param {number} now local monotonic seconds
 * @returns {State}
 */
export function reduce(state, msg, now) {
  switch (msg.type) {
    // --- the socket ---------------------------------------------------------------
    case "_open":
      return { ...state, conn: "open", retryIn: null };
    case "_closed":
      // The room picture stays on screen but is no longer live: a snapshot replaces it.
      // (a pause is the old connection's: the server says it again if it still holds)
      return {
        ...state,
        conn: "reconnecting",
        live: false,
        countdown: null,
        queue: null,
        paused: false,
      };
    case "_down":
      return { ...state, conn: "down", retryIn: msg.retryIn, live: false, countdown: null };
    case "_outdated":
      return { ...state, conn: "outdated", live: false };
    case "_key_refused":
      // this browser's player key is no player's now: no session, no record of theirs
      return {
        ...state,
        conn: "refused",
        live: false,
        room: null,
        result: null,
        closed: null,
        countdown: null,
        queue: null,
        profile: null,
        ladder: null,
        history: null,
      };
    case "_elsewhere":
      return { ...state, conn: "elsewhere", live: false, countdown: null, queue: null };
    case "_dismiss":
      return { ...state, error: null, notice: null };
    case "_lobby":
      return { ...state, room: null, result: null, closed: null, countdown: null };
    case "_replay_closed":
      return { ...state, replay: null, review: null };
    case "_rematch_dismissed":
      return { ...state, rematch: null };
    // --- session and lobby --------------------------------------------------------
    case "welcome": {
      const me = { playerId: msg.player_id, name: msg.name };
      if (state.me !== null && state.me.playerId !== me.playerId) {
        // another player now (a code, a link, a new start): the last one's record goes
        state = { ...state, history: null, profile: null, ladder: null, ratingChange: null, publicProfile: null };
      }
      if (msg.room) return { ...state, me, conn: "open" };
      // In no room: a room shown from before the drop has ended meanwhile.
      const hadRoom = state.room !== null && state.result === null;
      const notice = hadRoom ? "room_gone" : state.notice;
      const keep = state.result !== null; // a finished match's result stays to be read
      return {
        ...state,
        me,
        conn: "open",
        live: true,
        notice,
        room: keep ? state.room : null,
        countdown: null,
      };
    }
    case "error":
      return {
        ...state,
        error: { code: msg.code, message: msg.message, requestId: msg.request_id, at: now },
      };
    case "pong":
      return state;
    case "queued":
      return {
        ...state,
        queue: { wait: msg.wait, waiting: msg.waiting, since: state.queue?.since ?? now },
      };
    case "queue_left":
      return { ...state, queue: null };
    case "room_list":
      return { ...state, rooms: msg.rooms };
    case "history":
      return { ...state, history: msg.entries };
    case "profile":
      return { ...state, profile: msg };
    case "leaderboard":
      return { ...state, ladder: msg };
    case "rating_changed":
      return { ...state, ratingChange: msg };
    case "public_profile":
      return { ...state, publicProfile: msg };
    case "replay":
      // (a review of another match goes: a review is read beside its own replay)
      return { ...state, replay: msg, review: state.review?.code === msg.code ? state.review : null };
    case "review":
      return { ...state, review: msg };
    case "rematch_asked": {
      // the asker's name (or the finished room's, when it is the one on screen)
      const seats = state.room?.code === msg.code ? state.room.seats : null;
      return {
        ...state,
        rematch: {
          code: msg.code,
          seat: msg.seat,
          name: msg.name ?? seats?.[msg.seat]?.name ?? null,
          countdown: /** @type {Countdown} */ (countdownOf(msg.deadline, msg.server_time, now)),
        },
      };
    }
    case "chat_said": {
      if (state.room === null || msg.seat < 0 || msg.seat >= SEATS) return state;
      const said = [...state.said];
      said[msg.seat] = { phrase: msg.phrase, at: now };
      return { ...state, said };
    }
    case "snapshot":
      return fromRoom(state, msg.room, now);
    case "left":
      return { ...state, room: null, countdown: null, result: null, closed: null, paused: false };
    case "paused":
      // The server's storage is down: the match waits, its clocks stopped (the prompt that
      // follows "resumed" brings each clock's new deadline). Nothing else changes.
      if (state.room?.code !== msg.code) return state;
      return { ...state, paused: true, countdown: null };
    case "resumed":
      if (state.room?.code !== msg.code) return state;
      return { ...state, paused: false };
    case "room_closed":
      if (msg.reason === "match_over") {
        return { ...state, closed: msg.reason, countdown: null, paused: false };
      }
      return {
        ...state,
        paused: false,
        room: null,
        closed: msg.reason,
        notice: `room_closed_${msg.reason}`,
        countdown: null,
      };
  }
  if (state.room === null) return state;
  switch (msg.type) {
    case "seats":
      return { ...state, room: { ...state.room, seats: msg.seats, watchers: msg.watchers } };
    case "bot_speed":
      return { ...state, room: { ...state.room, bot_speed: msg.speed } };
    case "deal_started":
      return dealStarted(state, msg);
  }
  const table = state.room.table;
  if (!table) return state;
  switch (msg.type) {
    case "turn":
      return withTable(
        state,
        { turn: msg, version: msg.version },
        { countdown: countdownOf(msg.deadline, msg.server_time, now) },
      );
    case "bid":
      return withTable(
        state,
        { bids: [...table.bids, [msg.seat, msg.bid]], turn: null, version: msg.version },
        { countdown: null },
      );
    case "deal_void":
      return withTable(state, { turn: null }, { countdown: null, voids: msg.voids_in_row });
    case "landlord": {
      let hand = table.hand;
      if (hand && msg.seat === state.room.your_seat) hand = sorted([...hand, ...msg.kitty]);
      return withTable(
        state,
        {
          phase: "playing",
          landlord: msg.seat,
          base: msg.base,
          kitty: msg.kitty,
          card_counts: msg.card_counts,
          hand,
          turn: null,
        },
        { countdown: null, voids: 0 },
      );
    }
    case "played": {
      let hand = table.hand;
      if (hand && msg.seat === state.room.your_seat) {
        const gone = new Set(msg.cards);
        hand = hand.filter((/** @type {number} */ c) => !gone.has(c));
      }
      const play = { seat: msg.seat, cards: msg.cards, kind: msg.kind };
      const trick = state.trickOver ? [null, null, null] : [...state.trick];
      trick[msg.seat] = { cards: msg.cards, kind: msg.kind };
      return withTable(
        state,
        {
          hand,
          plays: [...table.plays, play],
          last_play: play,
          passes_in_row: 0,
          card_counts: msg.card_counts,
          multiplier: msg.multiplier,
          turn: null,
          version: msg.version,
        },
        { countdown: null, trick, trickOver: false },
      );
    }
    case "passed": {
      const trick = [...state.trick];
      trick[msg.seat] = "pass";
      const changes = {
        turn: null,
        version: msg.version,
        passes: [...table.passes, [msg.seat, table.plays.length]],
        last_play: msg.trick_over ? null : table.last_play,
        passes_in_row: msg.trick_over ? 0 : table.passes_in_row + 1,
      };
      return withTable(state, changes, { countdown: null, trick, trickOver: msg.trick_over });
    }
    case "deal_end": {
      const last = msg.deal_no >= table.deals_total;
      const seat = state.room.your_seat;
      let hand = table.hand;
      if (hand && seat !== null && seat < msg.hands.length) hand = sorted(msg.hands[seat]);
      const top = Math.max(...msg.totals);
      return withTable(
        state,
        {
          phase: last ? "over" : "between_deals",
          hand,
          turn: null,
          totals: msg.totals,
          deal_scores: [...table.deal_scores, msg.score.scores],
          last_deal: msg,
          ready: [false, false, false],
          winners: last
            ? [0, 1, 2].filter((s) => msg.totals[s] === top)
            : null,
        },
        { countdown: null },
      );
    }
    case "awaiting_ready":
      return withTable(
        state,
        { ready: msg.ready, version: msg.version },
        { countdown: countdownOf(msg.deadline, msg.server_time, now) },
      );
    case "match_end":
      return withTable(
        state,
        {
          phase: "over",
          turn: null,
          totals: msg.totals,
          winners: msg.winners,
          deal_scores: msg.deal_scores,
        },
        { countdown: null, result: msg },
      );
    case "seat_control":
      return seatControl(state, table, msg);
  }
  return state;
}

/** @param {number[]} cards */
function sorted(cards) {
  return [...cards].sort((a, b) => a - b);
}

/**
 * @param {State} state
 * @param {Msg} msg
 * @returns {State}
 */
function dealStarted(state, msg) {
  const old = state.room.table;
  const seat = state.room.your_seat;
  const table = {
    viewer_seat: seat,
    phase: "bidding",
    deal_no: msg.deal_no,
    deals_total: msg.deals_total,
    hand: seat === null || !msg.hand ? null : sorted(msg.hand),
    card_counts: msg.card_counts,
    first_bidder: msg.first_bidder,
    forced_bid: msg.forced_bid,
    bids: [],
    landlord: null,
    base: 0,
    kitty: null,
    plays: [],
    passes: [],
    last_play: null,
    passes_in_row: 0,
    turn: null,
    multiplier: 1,
    totals: old ? old.totals : [0, 0, 0],
    deal_scores: old ? old.deal_scores : [],
    last_deal: old ? old.last_deal : null,
    ready: [false, false, false],
    bot_control: old ? old.bot_control : [false, false, false],
    winners: null,
    version: old ? old.version : 0,
  };
  return {
    ...state,
    room: { ...state.room, table },
    countdown: null,
    trick: [null, null, null],
    trickOver: false,
  };
}

/**
 * A bot took a seat over or gave it back; the event states the version it left the match
 * at, as bids, passes and plays do.
 * @param {State} state
 * @param {Msg} table
 * @param {Msg} msg
 * @returns {State}
 */
function seatControl(state, table, msg) {
  const control = [...table.bot_control];
  control[msg.seat] = msg.bot;
  const turn = table.turn;
  const pending = [...(table.resume_pending ?? [false, false, false])];
  pending[msg.seat] = msg.reason === "resume_pending";
  const version = msg.version;
  if (msg.reason === "timeouts") {
    return withTable(state, { bot_control: control, resume_pending: pending, version });
  }
  if (msg.reason === "resume" && turn && turn.seat === msg.seat) {
    return withTable(
      state,
      { bot_control: control, turn: null, resume_pending: pending, version },
      { countdown: null },
    );
  }
  return withTable(state, {
    bot_control: control,
    version,
    turn: turn ? { ...turn, version } : null,
    resume_pending: pending,
  });
}

// --- selectors ----------------------------------------------------------------------

/** My seat, or null for a watcher (or outside a room). @param {State} s */
export function mySeat(s) {
  return s.room ? s.room.your_seat : null;
}

/** The three seats as placed on screen: [bottom, right, left]; a watcher sees seat 0 at
 * the bottom. The turn passes to the right. @param {State} s */
export function seatOrder(s) {
  const me = mySeat(s) ?? 0;
  return [me, (me + 1) % SEATS, (me + 2) % SEATS];
}

/** The table's turn when it is mine and no bot holds my seat. @param {State} s */
export function myTurn(s) {
  const table = s.room?.table;
  const me = mySeat(s);
  if (!s.live || !table || !table.turn || me === null) return null;
  if (table.turn.seat !== me || table.bot_control[me]) return null;
  return table.turn;
}

/** My hand as card ids, sorted by rank then suit (empty for a watcher). @param {State} s */
export function myHand(s) {
  return s.room?.table?.hand ?? [];
}

/** The play on the table to beat, or null when the seat on turn leads. @param {State} s */
export function toBeat(s) {
  const last = s.room?.table?.last_play;
  return last ? classify(last.cards.map(cardRank)) : null;
}

/** The highest bid so far. @param {State} s */
export function highestBid(s) {
  const bids = s.room?.table?.bids ?? [];
  return Math.max(0, ...bids.map((/** @type {number[]} */ b) => b[1]));
}

/** The bids I may make now (1..3 above the highest). @param {State} s */
export function legalBids(s) {
  const high = highestBid(s);
  return [1, 2, 3].filter((b) => b > high);
}

/**
 * For each rank 3..17, how many of its cards this viewer has not seen: not in its hand,
 * not played, not in the kitty once shown (the card counter, 记牌器).
 * @param {State} s
 * @returns {{rank: number, left: number}[]}
 */
export function unseen(s) {
  const table = s.room?.table;
  /** @type {Set<number>} */
  const seen = new Set();
  if (table) {
    for (const c of table.hand ?? []) seen.add(c);
    for (const c of table.kitty ?? []) seen.add(c);
    for (const p of table.plays ?? []) for (const c of p.cards) seen.add(c);
  }
  const left = new Map(RANKS.map((r) => [r, r >= 16 ? 1 : 4]));
  for (const c of seen) {
    const r = cardRank(c);
    left.set(r, /** @type {number} */ (left.get(r)) - 1);
  }
  return RANKS.map((rank) => ({ rank, left: /** @type {number} */ (left.get(rank)) }));
}

/**
 * What the line above the Play button says of a pick of cards, as a key and its
 * parameters: `ok` (a legal play), `bad` (the server would refuse it) or `info`.
 * @param {State} s
 * @param {Iterable<number>} picked card ids
 * @returns {{level: "ok" | "bad" | "info", key: string, play: any, other: any}}
 */
export function verdict(s, picked) {
  const turn = myTurn(s);
  const ids = [...picked];
  const other = toBeat(s);
  if (!turn || turn.action !== "play") {
    return { level: "info", key: "", play: null, other };
  }
  if (ids.length === 0) {
    return { level: "info", key: other ? "your_turn_beat" : "your_turn_lead", play: null, other };
  }
  const play = classify(ids.map(cardRank));
  if (play === null) return { level: "bad", key: "not_a_play", play: null, other };
  if (other !== null && !beats(play, other)) {
    return { level: "bad", key: "does_not_beat", play, other };
  }
  return { level: "ok", key: other ? "legal_beats" : "legal", play, other };
}

/**
 * What Hint cycles through on my turn: the legal plays that beat the table in the order of
 * `hintPlays` (those keeping bombs, the rocket and chains whole first, as the terminal
 * client's hint), then pass when I may pass (null).
 * @param {State} s
 * @returns {(import("./rules.js").Play | null)[]}
 */
export function hintOptions(s) {
  const turn = myTurn(s);
  if (!turn || turn.action !== "play") return [];
  /** @type {(import("./rules.js").Play | null)[]} */
  const options = hintPlays(myHand(s).map(cardRank), toBeat(s));
  if (turn.may_pass) options.push(null);
  return options;
}

/**
 * On my play turn, when I may pass and nothing in my hand beats the play on the table:
 * what auto-pass passes on (the play to beat), else null.
 * @param {State} s
 */
export function nothingBeats(s) {
  const turn = myTurn(s);
  const other = toBeat(s);
  if (!turn || turn.action !== "play" || !turn.may_pass || other === null) return null;
  return legalPlays(myHand(s).map(cardRank), other).length === 0 ? other : null;
}

/**
 * Card ids from `hand` spelling `ranks` (each rank taken from the cards not yet used),
 * taking the first card of each rank in `hand`'s order.
 * @param {readonly number[]} hand
 * @param {readonly number[]} ranks
 * @returns {number[]}
 */
export function cardsFor(hand, ranks) {
  const pool = [...hand];
  /** @type {number[]} */
  const out = [];
  for (const r of ranks) {
    const i = pool.findIndex((c) => cardRank(c) === r);
    if (i < 0) return [];
    out.push(pool[i]);
    pool.splice(i, 1);
  }
  return out;
}

/**
 * Smart pick on my play turn: the card ids to pick instead of `picked` after a swipe or
 * tap that picked `gesture`, or null to leave the pick as it is (rules.js `smartPick`:
 * not my turn, already a play that fits, or none in it). The cards the gesture picked are
 * kept first where a rank is picked more than once.
 * @param {State} s
 * @param {Iterable<number>} picked card ids picked after the gesture
 * @param {Iterable<number>} gesture card ids the gesture itself picked
 * @returns {number[] | null}
 */
export function smartPickCards(s, picked, gesture) {
  const turn = myTurn(s);
  if (!turn || turn.action !== "play") return null;
  const fresh = [...gesture];
  const ids = [...picked];
  const play = smartPick(ids.map(cardRank), toBeat(s), fresh.map(cardRank));
  if (play === null) return null;
  const pool = [...fresh, ...ids.filter((c) => !fresh.includes(c))];
  return cardsFor(pool, play.cards);
}
