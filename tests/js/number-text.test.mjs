// A number the library prints is JavaScript's `Number.prototype.toString` of it
// (host-contract §3: pi writes a bash execution's exit code with `${exitCode}`), checked
// against V8 itself through a path where the core parses the number and prints it again
// (src/js_text.rs, ryu-js: the shortest digits, ties to even; `exitCode` of a
// `bashExecution` message in `serializeConversation`). Tool-call arguments would not do:
// they travel as the host's own `JSON.stringify` text. Fixed seed; 20,000 values in 16
// classes (random bit patterns, short decimals, integers near and above 2^53, powers of
// ten and of two, the 1e21 and 1e-7 edges, subnormals, ties near 2^50).
import test from "node:test";
import assert from "node:assert/strict";
import { convertToLlm, serializeConversation as piSerializeConversation } from "@earendil-works/pi-agent-core";
import { dc } from "./helpers.mjs";

const buf = new ArrayBuffer(8);
const f64 = new Float64Array(buf);
const u32 = new Uint32Array(buf);
const MASK = (1n << 64n) - 1n;
let state = 0x9e3779b97f4a7c15n;
function r32() {
  state ^= (state << 13n) & MASK;
  state ^= state >> 7n;
  state ^= (state << 17n) & MASK;
  return Number(state & 0xffffffffn);
}
function fromBits(hi, lo) {
  u32[0] = lo;
  u32[1] = hi;
  return f64[0];
}
function nextUp(x) {
  f64[0] = x;
  if (x >= 0) {
    u32[0]++;
    if (u32[0] === 0) u32[1]++;
  } else {
    if (u32[0] === 0) u32[1]--;
    u32[0]--;
  }
  return f64[0];
}
const nextDown = (x) => -nextUp(-x);
function walk(x) {
  for (let i = r32() % 50; i > 0; i--) x = r32() & 1 ? nextUp(x) : nextDown(x);
  return x;
}

const CLASSES = [
  () => fromBits(r32(), r32()), // any bit pattern
  () => (r32() % 100000000) / 10 ** (r32() % 25), // short decimals
  () => (r32() % 1000) * 10 ** ((r32() % 40) - 20),
  () => 2 ** 53 + (r32() % 20000) - 10000, // near 2^53
  () => 2 ** (53 + (r32() % 20)) + (r32() % 1000) * 2 ** (r32() % 20), // above 2^53
  () => Number(`1e${(r32() % 600) - 300}`), // powers of ten
  () => walk(1e21), // the exponent form's edge
  () => walk(r32() & 1 ? 1e-7 : 1e-6),
  () => fromBits(r32() & 0xfffff, r32()), // subnormals
  () => 2 ** (50 + (r32() % 3)) + (r32() % 100000) / 8, // ties near 2^50..2^52
  () => 2 ** (48 + (r32() % 6)) + (r32() % 100000) / 16,
  () => Number(((r32() % 9999999) / 10 ** (r32() % 8)).toPrecision(1 + (r32() % 17))), // n digits
  () => Number(`${r32() % 100000}.${r32()}e${(r32() % 640) - 320}`),
  () => (r32() % 2 ? -1 : 1) * fromBits(r32(), r32()),
  () => fromBits((((r32() % 2046) + 1) << 20) >>> 0, 0), // powers of two
  () => fromBits(((((r32() % 2046) + 1) << 20) | 0xfffff) >>> 0, 0xffffffff),
];
const FIXED = [0, -0, 1, -1, 0.1, 0.2, 0.1 + 0.2, 1e21, 1e-7, 1e-6, 999999999999999900000, 1e20, 5e-324, -5e-324,
  Number.MAX_VALUE, 2.2250738585072014e-308, 2 ** 53, 2 ** 53 + 2, 2 ** 63, 2 ** 64, 123e-20, 4503599627370497.5,
  1658206780088562.25, 1.7976931348623157e308, 5e-7, 4.35, 0.000001];

test("numbers print as V8's Number.prototype.toString prints them", () => {
  const values = FIXED.slice();
  const perClass = new Array(CLASSES.length).fill(0);
  while (values.length < 20_000) {
    const k = r32() % CLASSES.length;
    const x = CLASSES[k]();
    if (!Number.isFinite(x)) continue; // JSON has no Infinity or NaN
    perClass[k]++;
    values.push(x);
  }
  assert.ok(perClass.every((n) => n > 1000), `every class is drawn: ${perClass}`);
  for (let i = 0; i < values.length; i += 2_000) {
    const ms = values.slice(i, i + 2_000).map((exitCode) => ({
      role: "bashExecution", command: "c", output: "o", exitCode, cancelled: false, truncated: false, timestamp: 1,
    }));
    const ours = dc.serializeConversation(ms).split("\n\n[User]: ");
    const theirs = piSerializeConversation(convertToLlm(ms)).split("\n\n[User]: ");
    assert.equal(ours.length, theirs.length);
    for (let j = 0; j < ours.length; j++) {
      assert.equal(ours[j], theirs[j], `exitCode ${Object.is(ms[j].exitCode, -0) ? "-0" : ms[j].exitCode}`);
    }
  }
});
