// @ts-check
// The page's websocket to its own server: hello with the session token and the lasting
// player key kept in this browser (a key the server issues is kept), request ids, reconnecting (within about a second while the server was reachable a
// moment ago, further apart later), and a ping that finds a dead link.
//
// The socket's comings and goings reach the page as messages of their own, for the
// reducer: `_open`, `_closed` (a live link dropped: reconnecting), `_down` (the server
// cannot be reached; `retryIn` seconds to the next try), `_outdated` (the server speaks
// another protocol version: the page must be reloaded), `_key_refused` (the server knows
// this browser's player key no more: replaced elsewhere; no retry until the person chooses)
// and `_elsewhere` (a newer connection of this player, another tab or device, took over;
// no retry until the person asks). No message handed on carries the key.

import { decode, encode, PROTOCOL_VERSION, ProtocolError } from "./codec.js";

/** Seconds between tries while the server was reachable a moment ago (a restart, a
 * dropped link): the first nearly at once, then under a second apart, jitter included, so
 * that a player is back within about a second of the server, and a refusal while it starts
 * (a 503) costs no more than the next try. */
export const FAST_RETRIES = Object.freeze([0.25, 0.5, 0.8]);
/** Seconds since the server was last reachable (the page came from it, or a live link to
 * it closed) during which the tries stay that fast: a restart's outage and start-up. */
export const FAST_FOR = 45;
/** Seconds between tries once the server has been away longer: further apart the longer
 * it stays away, then the last one again and again. */
export const BACKOFF = Object.freeze([2, 4, 8, 15]);
/** Seconds between pings, and how long a ping may go unanswered before the link is
 * taken for dead. */
const PING_EVERY = 15;
const PING_WAIT = 10;
/** The close code of a connection replaced by a newer one of the same player
 * (server/cluster/node.py CLOSE_REPLACED). */
export const CLOSE_REPLACED = 4000;
/** Names are 1..24 characters (code points) on the server. */
export const NAME_MAX = 24;

/** A link to this page as a player: the key in its fragment. */
const KEY_LINK_RE = /#player=([^&\s]+)/;
/** A player key as the server issues it (server/players/keys.py): `PID.SECRET`. */
export const KEY_RE = /^p[0-9a-f]{12,32}\.[A-Za-z0-9_-]{22,86}$/;

/**
 * The key in what was typed or pasted: a code (spaces and line breaks inside forgiven), or
 * a whole link with the code in its fragment; null when it is neither.
 * @param {string} text
 */
export function keyFrom(text) {
  const raw = String(text ?? "");
  const link = KEY_LINK_RE.exec(raw);
  let key = link ? link[1] : raw;
  try {
    key = decodeURIComponent(key);
  } catch {
    return null;
  }
  key = key.replace(/\s+/g, "");
  return KEY_RE.test(key) ? key : null;
}

/**
 * A name cut as the server would keep it: trimmed, inner runs of spaces one space (as the
 * server normalises it, so that spaces do not take the place of letters), at most 24 code
 * points, never empty. The server's other checks (protocol/text.py) stay the server's.
 * @param {string} name
 */
export function cleanName(name) {
  const spaced = String(name ?? "").trim().replace(/[ \u00a0\u3000]+/g, " ");
  const trimmed = Array.from(spaced).slice(0, NAME_MAX).join("").trim();
  return trimmed || "player";
}

/**
 * The delay before the next try, `attempt` tries (0, 1, ...) having failed in a row, the
 * server last reachable `downFor` seconds ago: fast while that was a moment ago
 * (`FAST_RETRIES`), then stepping through `BACKOFF` as if tried on it since then. Up to a
 * fifth is added at random so that many pages do not all come back in the same instant.
 * @param {number} attempt
 * @param {number} downFor
 * @param {() => number} [random]
 */
export function backoff(attempt, downFor, random = Math.random) {
  const base =
    downFor < FAST_FOR
      ? FAST_RETRIES[Math.min(attempt, FAST_RETRIES.length - 1)]
      : slowStep(downFor - FAST_FOR);
  return base * (1 + random() / 5);
}

/**
 * The `BACKOFF` step reached `past` seconds after the fast tries ended, as if tried on it.
 * @param {number} past
 */
function slowStep(past) {
  let step = 0;
  let left = past;
  while (step < BACKOFF.length - 1 && left >= BACKOFF[step]) {
    left -= BACKOFF[step];
    step += 1;
  }
  return BACKOFF[step];
}

export class Connection {
  /**
   * @param {{
   *   url: string,
   *   name: () => string,
   *   storage: Storage,
   *   tokenKey: string,
   *   keyKey: string,
   *   onMessage: (msg: {type: string, [k: string]: any}) => void,
   * }} options
   */
  constructor(options) {
    this.options = options;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.nextId = 1;
    this.attempt = 0;
    this.welcomed = false;
    this.stopped = false;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.retryTimer = null;
    /** @type {ReturnType<typeof setInterval> | null} */
    this.pingTimer = null;
    this.lastHeard = 0;
    /** When the server was last known reachable (performance.now()): the page itself just
     * came from it, and then each live link until it closed. */
    this.reachedAt = performance.now();
    this.helloId = 0;
    this.quickRetry = false;
  }

  /** The session token of this browser for this server, if any. */
  get token() {
    return this.options.storage.getItem(this.options.tokenKey);
  }

  /** The lasting player key of this browser for this server, if any (a secret). */
  get playerKey() {
    return this.options.storage.getItem(this.options.keyKey);
  }

  /** Go on as the player of `key` (a code typed, a link opened): the session kept was
   * perhaps another player's, so it goes, and the next hello speaks for the key. */
  useKey(/** @type {string} */ key) {
    this.keepKey(key);
    this.restart();
  }

  /** Keep `key` as this browser's player key (said in the next hello). */
  keepKey(/** @type {string} */ key) {
    this.options.storage.setItem(this.options.keyKey, key);
  }

  /** Start over as a new player: no key, no session (the server gives a new key). */
  newPlayer() {
    this.options.storage.removeItem(this.options.keyKey);
    this.restart();
  }

  start() {
    this.stopped = false;
    this.open();
  }

  open() {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    let ws;
    try {
      ws = new WebSocket(this.options.url);
    } catch {
      this.scheduleRetry();
      return;
    }
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    ws.onopen = () => {
      this.lastHeard = performance.now();
      this.helloId = this.nextId++;
      const hello = {
        type: "hello",
        id: this.helloId,
        name: cleanName(this.options.name()),
        version: PROTOCOL_VERSION,
        token: this.token ?? undefined,
        player_key: this.playerKey ?? undefined,
      };
      ws.send(encode(hello));
    };
    ws.onmessage = (event) => {
      this.lastHeard = performance.now();
      let msg;
      try {
        msg = decode(event.data);
      } catch (err) {
        if (err instanceof ProtocolError) return; // the page trusts its server; skip it
        throw err;
      }
      this.received(msg);
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.stopPing();
      const wasLive = this.welcomed;
      this.welcomed = false;
      if (this.stopped) return;
      if (event.code === CLOSE_REPLACED) {
        // another tab or device of this player took over: going back at once would take
        // it from them in turn, and so on; the person says where to play
        this.stopped = true;
        this.options.onMessage({ type: "_elsewhere" });
        return;
      }
      if (this.quickRetry) {
        this.quickRetry = false;
        this.open();
      } else if (wasLive) {
        this.attempt = 0;
        this.reachedAt = performance.now();
        this.options.onMessage({ type: "_closed" });
        this.retryTimer = setTimeout(() => this.open(), 300);
      } else {
        this.scheduleRetry();
      }
    };
  }

  /** @param {{type: string, [k: string]: any}} msg */
  received(msg) {
    if (msg.type === "welcome" || msg.type === "player_key") {
      // a key issued (a new player, or a new key asked for) is kept, and goes no further
      const { player_key: key, ...rest } = msg;
      if (typeof key === "string" && key) this.options.storage.setItem(this.options.keyKey, key);
      msg = rest;
    }
    if (msg.type === "welcome") {
      this.welcomed = true;
      this.attempt = 0;
      this.options.storage.setItem(this.options.tokenKey, msg.token);
      this.nextId = Math.max(this.nextId, msg.last_request_id + 1);
      this.startPing();
      this.options.onMessage({ type: "_open" });
    } else if (msg.type === "error" && !this.welcomed && msg.request_id === this.helloId) {
      if (msg.code === "bad_token") {
        // an expired session: forget it and say hello afresh
        this.options.storage.removeItem(this.options.tokenKey);
        this.options.onMessage(msg);
        this.quickRetry = true;
        this.ws?.close();
        return;
      }
      if (msg.code === "bad_key") {
        // the key was replaced on another device (or is unknown): no retry with it
        this.stopped = true;
        this.options.onMessage({ type: "_key_refused" });
        this.ws?.close();
        return;
      }
      if (msg.code === "version_mismatch") {
        this.stopped = true;
        this.options.onMessage({ type: "_outdated" });
        this.ws?.close();
        return;
      }
    }
    this.options.onMessage(msg);
  }

  scheduleRetry() {
    const delay = backoff(this.attempt, (performance.now() - this.reachedAt) / 1000);
    this.attempt += 1;
    this.options.onMessage({ type: "_down", retryIn: Math.ceil(delay) });
    this.retryTimer = setTimeout(() => this.open(), delay * 1000);
  }

  /** Try again at once (the person pressed Retry, or the browser came back online). */
  retryNow() {
    if (this.ws === null && !this.stopped) this.open();
  }

  /** Close and say hello again: a new session (after a change of name, or as another
   * player); also after the link was stopped (a refused key, another tab took over). */
  restart() {
    this.stopped = false;
    this.options.storage.removeItem(this.options.tokenKey);
    const ws = this.ws;
    this.quickRetry = true;
    if (ws) ws.close();
    else this.open();
  }

  /** Close and say hello again on the same session, under the name as it is now: a
   * player's new name (the server opens them a session under it). */
  rename() {
    this.stopped = false;
    const ws = this.ws;
    this.quickRetry = true;
    if (ws) ws.close();
    else this.open();
  }

  startPing() {
    this.stopPing();
    this.pingTimer = setInterval(() => {
      const quiet = (performance.now() - this.lastHeard) / 1000;
      if (quiet > PING_EVERY + PING_WAIT) {
        this.ws?.close(); // no answer: the link is dead
        return;
      }
      if (quiet > PING_EVERY) this.send({ type: "ping" });
    }, 5000);
  }

  stopPing() {
    if (this.pingTimer !== null) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  /**
   * Send a request with the next id; null when there is no live session to send it on.
   * @param {{type: string, [k: string]: any}} msg
   */
  send(msg) {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN || !this.welcomed) return null;
    const id = this.nextId++;
    ws.send(encode({ ...msg, id }));
    return id;
  }
}
