// The reference table of row timestamps (host-contract §6: `createdAt` is an ISO string,
// read as JavaScript's `Date.parse` reads it; the rows the package writes use
// `Date.prototype.toISOString`). tests/data/time-table.json holds inputs and what this
// Node's `Date` answers for them; src/transcript/time.rs's unit tests read it, so the Rust
// rules are held to `Date` itself. This test checks the file against the live `Date`
// (a table that rots fails here), and rewrites it with `--write`:
//
//   node tests/js/time-table.test.mjs --write
//
// Strings with a time but no zone are left out: `Date.parse` reads them in the host's
// local time zone, the library as UTC (it cannot know the host's zone).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";

const FILE = new URL("../data/time-table.json", import.meta.url);

function parseInputs() {
  const out = [];
  const pad = (n, w = 2) => String(n).padStart(w, "0");
  // every month's first and last possible day, in a common, a leap and a century year,
  // and one past the end (Date.parse rolls over up to day 31)
  for (const y of [1900, 1969, 1970, 2000, 2023, 2024, 2100]) {
    for (let m = 1; m <= 12; m++) {
      for (const d of [1, 28, 29, 30, 31]) out.push(`${pad(y, 4)}-${pad(m)}-${pad(d)}`);
    }
  }
  for (const y of [0, 1, 99, 100, 400, 1600, 1899, 1999, 2001, 2399, 2400, 9999]) {
    out.push(`${pad(y, 4)}-01-01`, `${pad(y, 4)}-02-29`, `${pad(y, 4)}-03-01`, `${pad(y, 4)}-12-31`);
  }
  // times, separators, fractions, zones
  const day = "2024-03-01";
  for (const t of ["00:00", "00:00:00", "23:59", "23:59:59", "23:59:59.999", "12:30:15.250", "24:00", "24:00:00", "24:00:00.000",
    "24:00:00.001", "24:01", "24:00:01", "25:00", "12:59:59", "12:60", "12:00:60", "12:00:61", "12:30:15.1", "12:30:15.12",
    "12:30:15.1234", "12:30:15.9999", "12:30:15.", "12", "12:3", "1:30"]) {
    for (const zone of ["Z", "+00:00", "+02:00", "-05:30", "+0530", "-0800", "+23:59", "-23:59", "+24:00", "+05:60", "z"]) {
      out.push(`${day}T${t}${zone}`);
    }
    out.push(`${day}t${t}Z`);
    // a space instead of T is V8's legacy parser, which reads more than the format: only
    // well-formed times
    if (/^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,3})?)?$/.test(t)) out.push(`${day} ${t}Z`);
  }
  out.push(
    "2024-13-01", "2024-00-10", "2024-03-00", "2024-03-32", "24-03-01", "2024-03-01T", "2024-03-01T12:30Zjunk", "2024-03-01T12:30+02", "2024-03-01T12:30+2:00",
    "yesterday", "", "2024-03-01T12:30:15.250ZZ", "2024-03-01T12:30:15,250Z", "2024-03-01T12:30:15.29Z", "2024-03-01T12:30:15.57Z",
    "2024-03-01T12:30:15.999999999Z",
    // expanded years (what toISOString writes outside 0000-9999) and Date's range, ±8.64e15 ms
    "+002024-03-01", "+002024-03-01T12:30Z", "-000001-01-01", "+000000-01-01", "+010000-01-01",
    "+275760-09-13T00:00:00.000Z", "+275760-09-13T00:00:00.001Z", "+275760-09-12T23:59:59.999-00:01",
    "-271821-04-20T00:00:00.000Z", "-271821-04-19T23:59:59.999Z", "-271821-04-20T00:00:00.000+00:01",
  );
  // Legacy forms Date.parse reads in the local time zone (left out: the table must not
  // depend on the machine's zone): "2024-3-01", "2024/03/01", " 2024-03-01 ", "+2024-03-01",
  // "002024-03-01", "+27576-09-13", "-000000-01-01" (the library reads none of them).
  return out;
}

function formatInputs() {
  const out = [0, -0, 1, -1, 0.5, -0.5, 999.9, -999.9, 86_399_999, 86_400_000, -86_400_000, -86_400_001,
    951_782_400_000, 951_868_800_000, 1_709_296_215_250.7, 4_102_444_800_123, 253_402_300_799_999, 253_402_300_800_000,
    -62_167_219_200_000, -62_167_219_200_001, -62_198_755_200_000, 8.64e15, -8.64e15, 8.64e15 + 1, -8.64e15 - 1,
    Number.MAX_VALUE, -Number.MAX_VALUE, Infinity, -Infinity, NaN];
  // a fixed spread over Date's whole range (a linear congruential sequence, seed 20261201)
  let x = 20261201;
  for (let i = 0; i < 300; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const unit = x / 2147483648; // [0, 1)
    const span = i % 3 === 0 ? 8.64e15 : i % 3 === 1 ? 4.1e12 : 1e10;
    out.push(Math.round((unit * 2 - 1) * span));
  }
  return out;
}

const parsed = (s) => {
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? null : ms;
};
const formatted = (ms) => {
  try {
    return new Date(ms).toISOString();
  } catch {
    return null; // RangeError: Invalid time value
  }
};
// JSON has no NaN, Infinity or -0: numbers that JSON cannot hold are written as strings
const toJson = (ms) => (Number.isFinite(ms) && !Object.is(ms, -0) ? ms : String(Object.is(ms, -0) ? "-0" : ms));
const fromJson = (v) => (typeof v === "number" ? v : v === "-0" ? -0 : Number(v));

function table() {
  return {
    about: "Date.parse and Date.prototype.toISOString of this Node (tests/js/time-table.test.mjs writes and checks this file)",
    parse: parseInputs().map((input) => [input, parsed(input)]),
    format: formatInputs().map((ms) => [toJson(ms), formatted(ms)]),
  };
}

if (process.argv.includes("--write")) {
  writeFileSync(FILE, JSON.stringify(table(), null, 0).replaceAll('],[', '],\n[') + "\n");
  console.log(`wrote ${FILE.pathname}`);
} else {
  test("tests/data/time-table.json is what Date answers today", () => {
    const file = JSON.parse(readFileSync(FILE, "utf8"));
    for (const [input, expected] of file.parse) assert.equal(parsed(input), expected, `Date.parse(${JSON.stringify(input)})`);
    for (const [ms, expected] of file.format) assert.equal(formatted(fromJson(ms)), expected, `new Date(${ms}).toISOString()`);
    assert.deepEqual(file, table(), "the file holds exactly the generator's inputs");
  });
}
