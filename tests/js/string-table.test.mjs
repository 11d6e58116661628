// The reference table of JavaScript's string rules the library reproduces without
// JavaScript: the host's overflow regex (host-contract §5, a `/i` regex without `u`),
// `String.prototype.trim` (the host's "trim"), and `String.prototype.toLowerCase`
// (host-contract §6 "lowercase", of names). tests/data/string-table.json holds inputs and
// what this Node answers for them; the Rust unit tests of src/fallback/provider_error.rs,
// src/js_trim.rs and src/lowercase.rs read it, so the Rust rules are held to JavaScript
// itself. This test checks the file against the live engine (a table that rots fails
// here), and rewrites it with `--write`:
//
//   node tests/js/string-table.test.mjs --write
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";

const FILE = new URL("../data/string-table.json", import.meta.url);

// host-contract §5, as written there
const OVERFLOW =
  /context[ _-]?length|maximum context|context window|too many tokens|prompt is too long|input token count|exceeds the (?:maximum|model)|token limit/i;

function overflowInputs() {
  return [
    "", "token limit", "TOKEN LIMIT", "Token Limit reached", "This model's Maximum Context length is 8192",
    "CONTEXT_LENGTH_EXCEEDED", "context-length", "contextlength", "context  length", "Context Window",
    "Exceeds The Model's limit", "EXCEEDS THE MAXIMUM", "prompt is too long", "PROMPT IS TOO LONG", "input token count",
    // a non-ASCII character never matches an ASCII one in a /i regex without u, even where
    // Unicode's case mapping would make it one (Kelvin sign K, long s, dotted and dotless i)
    "TO\u212AEN LIMIT", "too many to\u212Aens", "to\u212Aen limit", "conte\u017Ft window", "too many token\u017F",
    "\u0130NPUT TOKEN COUNT", "\u0131nput token count", "prompt \u0131s too long", "PROMPT \u0130S TOO LONG",
    "context\u00A0length", "\uFF34\uFF2F\uFF2B\uFF25\uFF2E LIMIT", "maximum\u2003context", "\u212Aontext window",
  ];
}

// every character some engine calls white space, at either end and inside
const SPACES = [
  "\t", "\n", "\u000B", "\f", "\r", " ", "\u0085", "\u00A0", "\u1680", "\u180E", "\u2000", "\u2005", "\u200A", "\u200B",
  "\u2028", "\u2029", "\u202F", "\u205F", "\u3000", "\uFEFF", "\u0000", "\u001F",
];
function trimInputs() {
  const out = ["", "x", " x ", "x y"];
  for (const s of SPACES) out.push(s, `${s}x`, `x${s}`, `${s}x${s}y${s}`);
  out.push(SPACES.join(""), `${SPACES.join("")}x${SPACES.join("")}`);
  return out;
}

// names: a fixed sequence (a linear congruential generator, seed 20261202) over letters
// whose lowercase is not themselves or not one character (Σ, İ, Kelvin sign, Greek with
// tonos, ǅ, Deseret), case-ignorable ones (combining acute, soft hyphen, apostrophe,
// period, colon, modifier letters, emoji modifier), separators and others
const ALPHABET = [
  "Σ", "Σ", "Σ", "Σ", "σ", "ς", "İ", "I", "i", "\u212A", "K", "A", "z", "Α", "Ω", "Ά", "ǅ", "Ǆ", "ß", "ẞ", "ᾈ", "\u2160",
  "\u{10400}", "Ж", "ж", "Ⓐ", "\u0301", "\u00AD", "'", ".", ":", "\u0345", "\u02B0", "\u{1F3FB}", "\u200D", " ", "_",
  "-", "/", "1", "中", "😀", ".md",
];
function lowerInputs() {
  const out = ["", "Explorer", "ΟΔΥΣΣΕΥΣ", "ΑΣ", "ΑΣ.", "ΑΣ'Α", "Σ", "ΑΣ\u0301", "İSTANBUL", "\u212AELVIN"];
  let x = 20261202;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32; // [0, 1)
  for (let i = 0; i < 400; i++) {
    let s = "";
    const len = Math.floor(next() * 9);
    for (let j = 0; j < len; j++) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
    out.push(s);
  }
  return out;
}

function table() {
  return {
    about:
      "the host's overflow regex (host-contract §5), String.prototype.trim and toLowerCase of this Node (tests/js/string-table.test.mjs writes and checks this file)",
    overflowRegex: OVERFLOW.toString(),
    overflow: overflowInputs().map((s) => [s, OVERFLOW.test(s)]),
    trim: trimInputs().map((s) => [s, s.trim()]),
    toLowerCase: lowerInputs().map((s) => [s, s.toLowerCase()]),
  };
}

if (process.argv.includes("--write")) {
  writeFileSync(FILE, JSON.stringify(table(), null, 0).replaceAll("],[", "],\n[") + "\n");
  console.log(`wrote ${FILE.pathname}`);
} else {
  test("tests/data/string-table.json is what this JavaScript engine answers today", () => {
    const file = JSON.parse(readFileSync(FILE, "utf8"));
    const re = new RegExp(file.overflowRegex.slice(1, -2), "i");
    for (const [input, expected] of file.overflow) assert.equal(re.test(input), expected, `${re}.test(${JSON.stringify(input)})`);
    for (const [input, expected] of file.trim) assert.equal(input.trim(), expected, `${JSON.stringify(input)}.trim()`);
    for (const [input, expected] of file.toLowerCase) {
      assert.equal(input.toLowerCase(), expected, `${JSON.stringify(input)}.toLowerCase()`);
    }
    assert.deepEqual(file, table(), "the file holds exactly the generator's inputs");
  });
}
