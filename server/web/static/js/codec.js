// @ts-check
// The wire codec for the browser table: messages as msgpack maps in binary websocket frames
// (protocol/codec.py, the client's side of it).
//
// `encode(message)` packs a client message (a plain object with a `type`) into the bytes to
// send; `decode(data)` unpacks a server frame into a plain object. Decoding throws exactly
// one error type, `ProtocolError`, for every bad frame, with the codes the Python codec uses:
// too large (`too_large`), text or not msgpack or not a map (`malformed`), or a `type` this
// protocol does not know (`unknown_type`). Fields are not checked one by one as pydantic does
// on the server: the server checks what the page sends, and the page trusts its server.
//
// A page opens its socket with `socket.binaryType = "arraybuffer"` and passes `event.data`.

import { Decoder, Encoder } from "../vendor/msgpack-3.1.3/index.mjs";

/** The protocol version this codec speaks (`hello.version`), protocol/messages.py. */
export const PROTOCOL_VERSION = 1;

/** Frames above this many bytes are refused before they are parsed (as `decode_server`). */
export const DEFAULT_MAX_FRAME = 1 << 20;

/** The error codes of a bad frame (protocol/errors.py). */
export const ErrorCode = Object.freeze({
  MALFORMED: "malformed",
  UNKNOWN_TYPE: "unknown_type",
  TOO_LARGE: "too_large",
});

/** Every `type` a client may send (protocol/messages.py, ClientMessage). */
export const CLIENT_TYPES = Object.freeze([
  "hello",
  "start_practice",
  "create_room",
  "join_room",
  "seat_bot",
  "ready",
  "bid",
  "pass",
  "play",
  "resume",
  "set_bot_speed",
  "watch",
  "leave",
  "ping",
  "quick_match",
  "leave_queue",
  "list_rooms",
  "chat",
  "rematch",
  "get_replay",
  "get_review",
  "get_history",
  "get_profile",
  "new_player_key",
  "get_leaderboard",
  "get_public_profile",
  "get_puzzle",
  "puzzle_move",
]);

/** Every `type` a server sends (protocol/messages.py, ServerMessage; protocol/events.py). */
export const SERVER_TYPES = Object.freeze([
  "welcome",
  "error",
  "pong",
  "snapshot",
  "seats",
  "bot_speed",
  "room_closed",
  "left",
  "queued",
  "queue_left",
  "room_list",
  "deal_started",
  "bid",
  "deal_void",
  "landlord",
  "played",
  "passed",
  "turn",
  "deal_end",
  "awaiting_ready",
  "match_end",
  "seat_control",
  "chat_said",
  "rematch_asked",
  "replay",
  "review",
  "history",
  "profile",
  "player_key",
  "rating_changed",
  "leaderboard",
  "public_profile",
  "paused",
  "resumed",
  "puzzle",
  "puzzle_reply",
]);

const CLIENT = new Set(CLIENT_TYPES);
const SERVER = new Set(SERVER_TYPES);

/** A frame that is not a valid message; `code` says how, `requestId` which request. */
export class ProtocolError extends Error {
  /**
   * @param {string} code one of ErrorCode
   * @param {string} message
   * @param {number | null} [requestId]
   */
  constructor(code, message, requestId = null) {
    super(message);
    this.name = "ProtocolError";
    this.code = code;
    this.requestId = requestId;
  }
}

/**
 * A message as it travels: a map with a `type` and the fields of that type.
 * @typedef {{type: string, [field: string]: unknown}} Message
 */

// Fields left undefined are left out, so the server fills in their defaults (a request's
// `id` is 0 unless given), as when Python leaves a field at its default.
const encoder = new Encoder({ ignoreUndefined: true });
const decoder = new Decoder({
  // as Python's strict_map_key: map keys are strings (field names), nothing else
  mapKeyConverter: (/** @type {unknown} */ key) => {
    if (typeof key !== "string") throw new TypeError("map keys must be strings");
    return key;
  },
});

/**
 * One client message as a msgpack map, the bytes of a binary frame.
 * @param {Message} message
 * @returns {Uint8Array<ArrayBuffer>} a copy of the encoder's buffer (`WebSocket.send` takes it)
 */
export function encode(message) {
  if (!isMap(message) || !CLIENT.has(/** @type {string} */ (message.type))) {
    throw new TypeError(`not a client message: type ${JSON.stringify(message?.type)}`);
  }
  return /** @type {Uint8Array<ArrayBuffer>} */ (encoder.encode(message));
}

/**
 * A server's frame as a message; ProtocolError when it is not one.
 * @param {ArrayBuffer | ArrayBufferView | string} data a websocket message's `data`
 * @param {number} [maxSize]
 * @returns {Message}
 */
export function decode(data, maxSize = DEFAULT_MAX_FRAME) {
  const obj = unpack(data, maxSize);
  const rid = requestId(obj);
  const type = obj.type;
  if (typeof type !== "string" || !SERVER.has(type)) {
    throw new ProtocolError(
      ErrorCode.UNKNOWN_TYPE,
      `unknown message type ${type === undefined ? "(none)" : JSON.stringify(type)}`,
      rid,
    );
  }
  return /** @type {Message} */ (obj);
}

/**
 * @param {ArrayBuffer | ArrayBufferView | string} data
 * @param {number} maxSize
 * @returns {Record<string, unknown>}
 */
function unpack(data, maxSize) {
  if (typeof data === "string") {
    throw new ProtocolError(
      ErrorCode.MALFORMED,
      "text frames are not accepted: send binary msgpack",
    );
  }
  const bytes = ArrayBuffer.isView(data)
    ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    : new Uint8Array(data);
  if (bytes.byteLength > maxSize) {
    throw new ProtocolError(
      ErrorCode.TOO_LARGE,
      `frame of ${bytes.byteLength} bytes exceeds ${maxSize}`,
    );
  }
  let obj;
  try {
    obj = decoder.decode(bytes);
  } catch {
    throw new ProtocolError(ErrorCode.MALFORMED, "frame is not valid msgpack");
  }
  if (!isMap(obj)) throw new ProtocolError(ErrorCode.MALFORMED, "a message is a msgpack map");
  return /** @type {Record<string, unknown>} */ (obj);
}

/**
 * The request id a frame names, when it is a readable one (an int >= 0).
 * @param {Record<string, unknown>} obj
 * @returns {number | null}
 */
function requestId(obj) {
  const rid = obj.id;
  return Number.isInteger(rid) && /** @type {number} */ (rid) >= 0
    ? /** @type {number} */ (rid)
    : null;
}

/** A plain object: what a msgpack map decodes to. @param {unknown} x */
function isMap(x) {
  return typeof x === "object" && x !== null && !Array.isArray(x) && !ArrayBuffer.isView(x);
}
