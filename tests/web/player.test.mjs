// The lasting player in the page's pure parts: the key kept by the connection and never
// handed on in a message, a refused key and a session taken over elsewhere (no retry), a
// code read from what was typed or pasted, and the reducer's profile, ladder and rating
// change. Run: node --test tests/web/player.test.mjs (tests/web/test_page_profile.py runs it).
import assert from "node:assert/strict";
import { test } from "node:test";
import { CLOSE_REPLACED, Connection, keyFrom } from "../../server/web/static/js/conn.js";
import { initialState, reduce } from "../../server/web/static/js/state.js";

const KEY = "p0123456789abcdef.AbCdEfGhIjKlMnOpQrStUvWxYz_-0123";

function memoryStorage() {
  const map = new Map();
  return {
    getItem: (k) => (map.has(k) ? map.get(k) : null),
    setItem: (k, v) => map.set(k, String(v)),
    removeItem: (k) => map.delete(k),
    map,
  };
}

/** A connection over a fake socket: what it sent, what it handed on. */
function connection(storage = memoryStorage()) {
  const handed = [];
  const conn = new Connection({
    url: "ws://test/",
    name: () => "Ann",
    storage,
    tokenKey: "token",
    keyKey: "key",
    onMessage: (m) => handed.push(m),
  });
  const sent = [];
  const socket = { readyState: 1, send: (b) => sent.push(b), close: () => socket.onclose?.({ code: 1000 }) };
  conn.ws = /** @type {any} */ (socket);
  return { conn, handed, storage, socket };
}

test("a code is read from a code, a code with spaces or line breaks, or a whole link", () => {
  assert.equal(keyFrom(KEY), KEY);
  assert.equal(keyFrom(`  ${KEY.slice(0, 10)}\n${KEY.slice(10)} `), KEY);
  assert.equal(keyFrom(`https://ddz.example/#player=${KEY}`), KEY);
  assert.equal(keyFrom(`https://ddz.example/#player=${encodeURIComponent(KEY)}`), KEY);
  assert.equal(keyFrom("not a code"), null);
  assert.equal(keyFrom("p0123.short"), null);
  assert.equal(keyFrom(""), null);
  assert.equal(keyFrom("https://ddz.example/#player=%E0%A4%A"), null);
});

test("a key in the welcome or after a new key is kept, and handed on to nobody", () => {
  const { conn, handed, storage } = connection();
  conn.received({ type: "welcome", token: "t1", player_id: "p1", name: "Ann", resumed: false, room: null, last_request_id: 0, player_key: KEY });
  conn.stopPing();
  assert.equal(storage.getItem("key"), KEY);
  assert.equal(conn.playerKey, KEY);
  assert.ok(handed.every((m) => !JSON.stringify(m).includes(KEY)));
  conn.received({ type: "player_key", player_key: `${KEY}x` });
  assert.equal(storage.getItem("key"), `${KEY}x`);
  assert.deepEqual(handed.at(-1), { type: "player_key" });
  // a welcome without a key (a known player) leaves the kept one
  conn.received({ type: "welcome", token: "t2", player_id: "p1", name: "Ann", resumed: true, room: null, last_request_id: 3 });
  conn.stopPing();
  assert.equal(storage.getItem("key"), `${KEY}x`);
});

test("a refused key stops the retries and says so; taking a code or starting anew goes on", () => {
  const { conn, handed, storage } = connection();
  storage.setItem("key", KEY);
  storage.setItem("token", "old");
  conn.helloId = 1;
  conn.received({ type: "error", code: "bad_key", message: "unknown or replaced player key", request_id: 1 });
  assert.equal(conn.stopped, true);
  assert.deepEqual(handed.map((m) => m.type), ["_key_refused"]);
  conn.open = () => {}; // no socket in node: what restart would open
  conn.newPlayer();
  assert.equal(storage.getItem("key"), null);
  assert.equal(storage.getItem("token"), null);
  assert.equal(conn.stopped, false);
  conn.stopped = true;
  conn.useKey(KEY);
  assert.equal(storage.getItem("key"), KEY);
  assert.equal(conn.stopped, false);
});

test("a connection replaced by another tab or device does not take it back by itself", () => {
  const fake = { readyState: 1, send: () => {}, close: () => {} };
  const saved = globalThis.WebSocket;
  globalThis.WebSocket = /** @type {any} */ (Object.assign(function () { return fake; }, { OPEN: 1 }));
  try {
    const { conn, handed } = connection();
    conn.ws = null;
    conn.open(); // the socket as the browser gives it
    conn.welcomed = true;
    let reopened = false;
    conn.open = () => {
      reopened = true;
    };
    /** @type {any} */ (fake).onclose({ code: CLOSE_REPLACED });
    assert.deepEqual(handed.map((m) => m.type), ["_elsewhere"]);
    assert.equal(conn.stopped, true);
    assert.equal(reopened, false);
    conn.retryNow(); // "online" or Retry: still not, until the person says Play here
    assert.equal(reopened, false);
  } finally {
    globalThis.WebSocket = saved;
  }
});

test("the reducer keeps the profile, the ladder and a rating change; another player drops them", () => {
  let s = reduce(initialState(), { type: "welcome", token: "t", player_id: "p1", name: "Ann", room: null, last_request_id: 0 }, 0);
  s = reduce(s, { type: "profile", player_id: "p1", name: "Ann", modes: [], matches: [], offset: 0, total: 0 }, 1);
  s = reduce(s, { type: "leaderboard", top: [], ranked: 0, min_matches: 10, you: null }, 1);
  const change = { type: "rating_changed", code: "Q1", before: { rating: 0, mu: 25, sigma: 8.3, matches: 0 }, after: { rating: 1.2, mu: 26, sigma: 8, matches: 1 } };
  s = reduce(s, change, 2);
  assert.equal(s.profile.name, "Ann");
  assert.equal(s.ladder.min_matches, 10);
  assert.equal(s.ratingChange, change);
  // the same player again (a reconnect): all stays
  s = reduce(s, { type: "welcome", token: "t", player_id: "p1", name: "Ann", room: null, last_request_id: 0 }, 3);
  assert.ok(s.profile && s.ladder && s.ratingChange);
  // another player on this browser (a code typed): the last one's record goes
  s = reduce(s, { type: "welcome", token: "u", player_id: "p2", name: "Bo", room: null, last_request_id: 0 }, 4);
  assert.equal(s.profile, null);
  assert.equal(s.ladder, null);
  assert.equal(s.ratingChange, null);
  assert.equal(s.history, null);
});

test("a refused key empties the screen of the player; taken over elsewhere keeps it, not live", () => {
  let s = reduce(initialState(), { type: "welcome", token: "t", player_id: "p1", name: "Ann", room: null, last_request_id: 0 }, 0);
  s = reduce(s, { type: "history", entries: [{ code: "A" }] }, 1);
  const elsewhere = reduce(s, { type: "_elsewhere" }, 2);
  assert.equal(elsewhere.conn, "elsewhere");
  assert.equal(elsewhere.live, false);
  assert.equal(elsewhere.history?.length, 1);
  const refused = reduce(s, { type: "_key_refused" }, 2);
  assert.equal(refused.conn, "refused");
  assert.equal(refused.history, null);
  assert.equal(refused.room, null);
});
