// Driver for tests/web/test_js_codec.py: the browser's codec on the cases in the JSON file
// named on the command line. Bytes travel as hex. Prints JSON:
//   types:   the message types the codec knows, each way
//   encoded: each client message (a plain object) encoded, as hex
//   literals: some client messages written here, fields left undefined, encoded
//   decoded: each server frame decoded, as plain data
//   refused: each bad frame's error, as {code, request_id}
import { readFileSync } from "node:fs";
import {
  CLIENT_TYPES,
  PROTOCOL_VERSION,
  ProtocolError,
  SERVER_TYPES,
  decode,
  encode,
} from "../../server/web/static/js/codec.js";

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));

const hex = (/** @type {Uint8Array} */ bytes) => Buffer.from(bytes).toString("hex");
const bytes = (/** @type {string} */ text) => new Uint8Array(Buffer.from(text, "hex"));

/** @param {{hex?: string, text?: string, max_size?: number, slice?: boolean}} frame */
const data = (frame) => {
  if (frame.text !== undefined) return frame.text;
  const b = bytes(/** @type {string} */ (frame.hex));
  if (!frame.slice) return b.buffer; // as a websocket gives it: an ArrayBuffer
  // a view into a larger buffer, at an offset
  const big = new Uint8Array(b.byteLength + 8);
  big.set(b, 4);
  return big.subarray(4, 4 + b.byteLength);
};

const out = {
  types: { to_server: [...CLIENT_TYPES], to_client: [...SERVER_TYPES] },
  encoded: input.client.map((/** @type {any} */ message) => hex(encode(message))),
  literals: [
    { type: "hello", name: "ann", version: PROTOCOL_VERSION, token: undefined },
    { type: "play", id: 9, ranks: [3, 3, 3, 4], version: undefined },
    { type: "pass", id: 10, version: 12 },
    { type: "ready", id: undefined }, // sent as nil, the server would refuse it
    { type: "start_practice", id: 11, deals: undefined, level: "easy" },
  ].map((message) => hex(encode(message))),
  decoded: input.server.map((/** @type {any} */ frame) => decode(data(frame))),
  refused: input.bad.map((/** @type {any} */ frame) => {
    try {
      decode(data(frame), frame.max_size ?? undefined);
      return null;
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      return { code: error.code, request_id: error.requestId };
    }
  }),
};
process.stdout.write(JSON.stringify(out));
