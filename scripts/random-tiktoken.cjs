#!/usr/bin/env node
// random-tiktoken.cjs: random texts with their tokens in one of tiktoken's encodings as its Rust
// core gives them, for internal/bpe's vector tests:
//
//     npm install --prefix /tmp/tt tiktoken@1.0.22
//     NODE_PATH=/tmp/tt/node_modules scripts/random-tiktoken.cjs --seed 1 --n 100000 > /tmp/o200k.jsonl
//     QA_O200K_VECTORS=/tmp/o200k.jsonl go test ./internal/bpe -run Vectors
//     NODE_PATH=/tmp/tt/node_modules scripts/random-tiktoken.cjs --encoding cl100k_base --seed 4 --n 100000 > /tmp/cl100k.jsonl
//     QA_CL100K_VECTORS=/tmp/cl100k.jsonl go test ./internal/bpe -run Vectors
//
// --encoding is o200k_base (the default) or cl100k_base; a seed gives the same texts whatever the
// encoding. Each line is {"text": ..., "ends": [...]}: the byte offset in the UTF-8 text just past
// each token of encode_ordinary(text). The npm package `tiktoken` is the WebAssembly build of the
// Rust crate behind Python's tiktoken (its pre-tokenizer on fancy-regex, its byte-pair merge), with
// the ranks and patterns it ships; it is not part of qapipe. Texts mix what steers the
// pre-tokenizers: letters of every case class, marks, digits of several scripts, contractions in
// any case (and with ſ), runs of whitespace around newlines, punctuation with slashes and
// newlines, DEL and other controls, emoji with joiners, CJK, private-use and unassigned code
// points, and longer chat-like lines.
"use strict";
const { get_encoding } = require("tiktoken");

function parseArgs() {
  const a = { seed: 1, n: 1000, encoding: "o200k_base" };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i].replace(/^--/, "");
    a[k] = k === "encoding" ? argv[i + 1] : Number(argv[i + 1]);
  }
  return a;
}

// mulberry32: a small seeded generator, so that a seed gives the same file.
function rng(seed) {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let x = Math.imul(t ^ (t >>> 15), 1 | t);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const pieces = [
  ..."abcXYZ é ß 12 345 6789 ' 's 't 're \n \r\n \t  !?.,;:/\\-_()[]{}\"#@$%^&*+=<>|~`",
  "\x7f", "\x00", "\x1c", "\x0b", "\x85", "\u00a0", "\u3000", "\u2028", "\u2029", "\u1680", "\u202f",
  "中文", "日本語", "한국어", "ﬁ", "İ", "Σσς", "🙂", "👍🏽", "\u0301", "\u200b", "\ufeff", "١٢٣", "٣", "Ⅷ", "²", "½",
  "𝟙", "ǅ", "ʰ", "ー", "\u{1F9D1}\u200d\u{1F4BB}", "'S", "'LL", "'Re", "'vE", "'ſ", "’s", " hello", " World",
  "HELLO", "CamelCase", "don't", "I'm", "We've", "x'd", "\n\n", "  \n", " \t\n ", "/\n", "ab/\r\n", "//\n\n",
  " //", "\u{10FFFF}", "\ue000", "\u{31350}", "\u0870", "\u{11F00}", "\u1e9e", "ǈ", "\u0345", "\u0903",
  "ﷺ", "\u2160", "𝒜", "Ⓐ", "ꞵ", "ᾼ", "\u00ad", "\u061c", "...", "---", "***", "1,000", "3.14", "2023/05/20",
];

const words = ["the", "I", "you", "my", "bike", "Paris", "yesterday", "recipe", "Session", "Date:", "user:",
  "assistant:", "**Tip:**", "- item", "1.", "```python", "print(x)", "```", "I'd", "it's", "THEY'RE", "we'll"];

function text(r) {
  if (r() < 0.2) { // chat-like lines with markdown
    const lines = [];
    const k = 1 + Math.floor(r() * 6);
    for (let i = 0; i < k; i++) {
      let line = "";
      const w = 1 + Math.floor(r() * 12);
      for (let j = 0; j < w; j++) line += (j ? " " : "") + words[Math.floor(r() * words.length)];
      lines.push(line + ["", " ", "  ", "\t", ":"][Math.floor(r() * 5)]);
    }
    return lines.join(["\n", "\n\n", "\n  \n", "\r\n", "\n   - "][Math.floor(r() * 5)]);
  }
  let s = "";
  const k = 1 + Math.floor(r() * 24);
  for (let i = 0; i < k; i++) s += pieces[Math.floor(r() * pieces.length)];
  return s;
}

function main() {
  const a = parseArgs();
  const r = rng(a.seed);
  const enc = get_encoding(a.encoding);
  const out = [];
  for (let i = 0; i < a.n; i++) {
    const s = text(r);
    const ends = [];
    let at = 0;
    for (const t of enc.encode_ordinary(s)) {
      at += enc.decode_single_token_bytes(t).length;
      ends.push(at);
    }
    if (at !== Buffer.byteLength(s, "utf8")) throw new Error("tokens do not cover " + JSON.stringify(s));
    out.push(JSON.stringify({ text: s, ends }));
    if (out.length >= 4096) { process.stdout.write(out.join("\n") + "\n"); out.length = 0; }
  }
  if (out.length) process.stdout.write(out.join("\n") + "\n");
  enc.free();
}

main();
