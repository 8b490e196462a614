/**
 * Credentials inside JSON text that travels as a string: a span attribute another instrumentation filled with a
 * serialized object (OpenInference's `input.value`, the AI SDK's `ai.prompt`), a tool call's `arguments`, a request
 * body a user recorded as text. Key redaction (secrets.ts) reads the keys of objects, not the keys inside such text;
 * this module finds them there, and masks their values with the same rule.
 *
 * Cheap on the strings every call carries: only a string that opens with `{` or `[` is looked at, and then only its
 * colons are visited (each key of JSON text ends `"key":`), each key judged by the redactor's cached verdict. Text is
 * parsed only when a key must be masked (or it holds a URL with a user part or a query, which the string scrub
 * checks): then the parsed tree is masked, and the text is masked where its values stand when that gives the same
 * JSON (every other byte kept), else the tree is written back in the text's own indentation.
 */

import type { KeyJudge } from "./secrets-json-scan.js";
import { forEachCredentialPair, keyMatches, quoteStart, valueCut } from "./secrets-json-scan.js";

export type { KeyJudge } from "./secrets-json-scan.js";

/**
 * A table of key endings (`[prev << 7 | last]`, see `KeyRedactor`) with the endings of a key whose last character is
 * written as an escape (`"passwor\u0064"`: the last two hex digits of a letter's, `_`'s or `-`'s code) already set, so
 * such keys are read: a letter's spelling must not hide a credential key.
 */
export function escapedEndings(): Uint8Array {
  const pairs = new Uint8Array(128 * 128);
  for (const prev of "234567")
    for (const last of "0123456789abcdefABCDEF") pairs[(prev.charCodeAt(0) << 7) | last.charCodeAt(0)] = 1;
  return pairs;
}

/** A URL in text that does not parse, to the end of the JSON string it stands in (a quote or a backslash). */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"\\]+/gi;

/** How deep a parsed tree is masked: JSON.parse builds deeper trees, which nothing real sends as an attribute. */
const MAX_DEPTH = 64;

/** Whether `text` opens (after up to 16 whitespace characters, or a byte order mark) with `{` or `[`: it may be JSON. */
export function opensLikeJson(text: string): boolean {
  const end = Math.min(text.length, 16);
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) return true;
    if (c > 32 && c !== 0xfeff) return false;
  }
  return false;
}

/**
 * Whether `text` opens like a JSON string of JSON text (a value encoded twice or more): a quote, then quotes and
 * backslashes only (each encoding adds some), then `{` or `[`. A quoted sentence (`"Hello," she said`) is not.
 */
export function opensLikeEncodedJson(text: string): boolean {
  if (text.charCodeAt(0) !== 0x22) return false;
  const end = Math.min(text.length, 512);
  for (let i = 1; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) return true;
    if (c !== 0x5c && c !== 0x22) return false;
  }
  return false;
}

/**
 * `text` (JSON, or text that opens like it) with the values under credential keys replaced by `masked` and every
 * other string value passed through `scrub` (nested JSON, URLs, private keys); `text` itself when nothing changed.
 * Text that does not parse (cut short by an attribute limit, JSON Lines, or not JSON after all) has the values of its
 * credential keys masked where they stand (an object or array whole), and its URLs checked by `scrub`.
 */
export function maskJsonText(text: string, judge: KeyJudge, scrub: (value: string) => string, masked: string): string {
  if (!worthParsing(text, judge)) return text;
  let tree: unknown;
  try {
    tree = JSON.parse(text);
  } catch {
    // Each URL as the string scrub checks a whole-string URL (its password, its credential parameters).
    return maskLoosely(text, judge, masked).replace(URL_IN_TEXT, scrub);
  }
  if (typeof tree === "string") return maskEncoded(text, tree, scrub);
  if (tree === null || typeof tree !== "object") return text;
  const deep = { reached: false };
  const changed = maskTree(tree, judge, scrub, masked, 0, deep);
  if (!changed && !deep.reached) return text;
  try {
    // Masked where they stand when that is the same JSON: every other byte kept (integers past 2^53, `1.0`, escapes,
    // spacing), which a parse and stringify would rewrite. Below the depth the tree is walked, keys are masked so.
    const loose = maskLoosely(text, judge, masked);
    if (!changed) return loose;
    if (deep.reached) return maskLoosely(JSON.stringify(tree, null, indentOf(text)), judge, masked);
    if (loose !== text && sameJson(JSON.parse(loose), tree, 0)) return loose;
    return JSON.stringify(tree, null, indentOf(text));
  } catch {
    // A tree too deep to write back (JSON.stringify overflows the stack): never a throw into the caller.
    return maskLoosely(text, judge, masked).replace(URL_IN_TEXT, scrub);
  }
}

/** Whether two parsed JSON values are equal (objects key by key, in order); false past {@link MAX_DEPTH}. */
function sameJson(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || depth >= MAX_DEPTH) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  const other = Object.keys(b);
  if (keys.length !== other.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key !== other[i]) return false;
    if (!sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/**
 * Where the key whose `"` closes at `end` before a colon may end, or -1: space before the colon (`"key" : value`, how
 * Jackson pretty-prints) is skipped. The caller has found text[colon - 1] is not a quote.
 */
function quoteBeforeSpace(text: string, colon: number): number {
  let end = colon - 1;
  while (end > 0 && text.charCodeAt(end) <= 32) end--;
  return end < colon - 1 && text.charCodeAt(end) === 0x22 ? end : -1;
}

/**
 * Visits every `"key":` of `text` (and `\"key\":` of JSON nested in its strings, at any depth) from its colon; `visit` returns true
 * to stop. A key is found from the `":` that ends it (how JSON.stringify and Python's json.dumps write a key), and is
 * read only when `wanted` says its last character can end a credential key: most keys end in a letter none does.
 * Colons are found with a one-character search, V8's fastest.
 */
function forEachKey(
  text: string,
  wanted: (prev: number, last: number) => boolean,
  visit: (key: string, colon: number, quote: string) => boolean | undefined,
): void {
  for (let colon = text.indexOf(":"); colon !== -1; colon = text.indexOf(":", colon + 1)) {
    let end = colon - 1;
    if (text.charCodeAt(end) !== 0x22) {
      if (text.charCodeAt(end) > 32) continue;
      end = quoteBeforeSpace(text, colon);
      if (end === -1) continue;
    }
    const closing = quoteStart(text, end);
    if (closing < 2 || !wanted(text.charCodeAt(closing - 2), text.charCodeAt(closing - 1))) continue;
    const quote = text.slice(closing, end + 1);
    // The key's opening quote: the nearest `"` a short way back (keys are short: a quote far back is the end of a
    // value), with the same backslashes before it. Not `lastIndexOf(quote)`: deep down the quote is long (16383
    // backslashes fourteen strings down) and a search for it far back cost seconds on a megabyte.
    let open = closing - 1;
    const limit = Math.max(0, closing - 130);
    while (open >= limit && text.charCodeAt(open) !== 0x22) open--;
    if (open < limit || !text.startsWith(quote, open - (quote.length - 1))) continue;
    if (visit(text.slice(open + 1, closing), colon, quote) === true) return;
  }
}

/**
 * Whether `text` has a key `judge` masks, or a URL (`://`) in it: what makes it worth parsing. {@link forEachKey}'s
 * scan written out, without its callbacks: it runs on every JSON-like string, most of which have nothing to mask.
 */
function worthParsing(text: string, judge: KeyJudge): boolean {
  for (let colon = text.indexOf(":"); colon !== -1; colon = text.indexOf(":", colon + 1)) {
    let end = colon - 1;
    const before = text.charCodeAt(end);
    if (before !== 0x22) {
      if (before > 32) {
        if (text.charCodeAt(colon + 1) === 0x2f && text.charCodeAt(colon + 2) === 0x2f && urlMayHoldSecret(text, colon))
          return true;
        continue;
      }
      end = quoteBeforeSpace(text, colon);
      if (end === -1) continue;
    }
    const closing = quoteStart(text, end);
    if (closing < 2 || !judge.mayEndWith(text.charCodeAt(closing - 2), text.charCodeAt(closing - 1))) continue;
    // The key's opening quote, a short way back (a loop: `lastIndexOf` costs more than the few reads).
    let open = closing - 1;
    const limit = Math.max(0, closing - 130);
    while (open >= limit && text.charCodeAt(open) !== 0x22) open--;
    // The key starts after that quote (of `\"` too, in JSON nested in strings).
    if (open >= limit && keyMatches(judge, text.slice(open + 1, closing))) return true;
  }
  return forEachCredentialPair(text, judge, STOP);
}

const STOP = () => true;

/**
 * Whether the URL whose `://` is at `colon` has a user part, a query or a fragment (where the string scrub finds a
 * password or a credential parameter): a URL without them (an image link, an endpoint) does not make text worth parsing.
 */
function urlMayHoldSecret(text: string, colon: number): boolean {
  const end = Math.min(text.length, colon + 2048);
  for (let i = colon + 3; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x40 || c === 0x3f || c === 0x23) return true; // @ ? #
    if (c === 0x22 || c === 0x5c || c <= 32) return false; // the end of the value
  }
  return false;
}

/** Masks `node` in place; whether anything changed. */
function maskTree(
  node: object,
  judge: KeyJudge,
  scrub: (value: string) => string,
  masked: string,
  depth: number,
  deep: { reached: boolean },
) {
  if (depth >= MAX_DEPTH) {
    deep.reached = true;
    return false;
  }
  let changed = false;
  const record = node as Record<string, unknown>;
  const keys = Array.isArray(node) ? undefined : Object.keys(node);
  const count = keys === undefined ? (node as unknown[]).length : keys.length;
  if (keys === undefined && (count & 1) === 0) {
    // A header's name in a list of even length (a pair `["Authorization", "Bearer …"]`, undici's flat list): the
    // item after it is a credential, as under that key in an object. The name is a string like any other (a URL
    // ending in `/token` keeps no password): the loop below scrubs it, as the serializer does.
    for (let i = 0; i < count; i += 2) {
      const name = record[i];
      if (typeof name !== "string" || !judge.matches(name)) continue;
      if (record[i + 1] === masked || record[i + 1] === null) continue;
      record[i + 1] = masked;
      changed = true;
    }
  }
  for (let i = 0; i < count; i++) {
    const key: string | number = keys === undefined ? i : keys[i]!;
    const value = record[key];
    if (typeof key === "string" && judge.matchesIn(key, (k) => record[k])) {
      if (value !== masked && value !== null) {
        record[key] = masked;
        changed = true;
      }
    } else if (typeof value === "string") {
      const scrubbed = scrub(value);
      if (scrubbed !== value) {
        record[key] = scrubbed;
        changed = true;
      }
    } else if (typeof value === "object" && value !== null) {
      if (maskTree(value, judge, scrub, masked, depth + 1, deep)) changed = true;
    }
  }
  return changed;
}

/**
 * Text that parsed as a JSON string (`decoded`) of JSON text: a value encoded twice or more (`"{\\"api_key\\":…}"`,
 * as a tool call's arguments encoded once more), scrubbed as the text it holds and encoded back as often. Its keys are
 * read in the text strings down, but what the string holds opens with a quote, which no scan reads as JSON: whole, such
 * text was sent with its credentials. Decoded a few times at most (each decode is a parse); text cut short a level down
 * is scrubbed as such (`scrub` gets a shorter string each time, so this ends).
 */
function maskEncoded(text: string, decoded: string, scrub: (value: string) => string): string {
  let inner = decoded;
  let times = 1;
  while (inner.charCodeAt(0) === 0x22 && times < 8) {
    let next: unknown;
    try {
      next = JSON.parse(inner);
    } catch {
      break;
    }
    if (typeof next !== "string") break;
    inner = next;
    times++;
  }
  let out = scrub(inner);
  if (out === inner) return text;
  for (; times > 0; times--) out = JSON.stringify(out);
  return out;
}

/** The indentation of pretty-printed JSON text (what follows its first line break), for writing it back alike. */
function indentOf(text: string): string | undefined {
  const newline = text.indexOf("\n");
  if (newline === -1) return undefined;
  let end = newline + 1;
  while (end < text.length && (text.charCodeAt(end) === 0x20 || text.charCodeAt(end) === 0x09)) end++;
  return end > newline + 1 ? text.slice(newline + 1, end) : undefined;
}

/**
 * Text that does not parse: each credential key's string value (to its closing quote, or to the end of text cut
 * short) or bare value (a number, `true`) is replaced where it stands. An object under such a key is left: without a
 * parse its extent is a guess.
 */
function maskLoosely(text: string, judge: KeyJudge, masked: string): string {
  // Where each value to mask starts (and its key, for the word-piece check): found first, measured after in order.
  // A value that starts inside one already cut is skipped unmeasured: measuring each of a run of unclosed objects or
  // lists (`{"token":[` or `["token",[` repeated, text cut short) to the end of the text was quadratic (seconds for
  // 100 KB); now each character is measured once.
  const starts: [at: number, quote: string, key: string | undefined][] = [];
  forEachKey(text, judge.mayEndWith, (key, colon, quote) => {
    if (keyMatches(judge, key)) starts.push([colon + 1, quote, key]);
    return undefined;
  });
  forEachCredentialPair(text, judge, (from, quote) => {
    starts.push([from, quote, undefined]);
    return undefined;
  });
  if (starts.length === 0) return text;
  starts.sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  for (const [start, quote, key] of starts) {
    if (start < at) continue;
    const cut = valueCut(text, start, quote, masked);
    if (cut === undefined || cut[0] < at) continue;
    if (key !== undefined && cut[3] !== -1 && isWordPiece(key, text, cut[3])) continue;
    out += text.slice(at, cut[0]) + cut[2];
    at = cut[1];
  }
  return out + text.slice(at);
}

/** Whether the string value under `key` that closed before `after` is a logprobs entry's `token` (a word piece). */
function isWordPiece(key: string, text: string, after: number): boolean {
  return (
    key.replace(/[-_]/g, "").toLowerCase() === "token" &&
    /^\s*,\s*\\?"logprob\\?"\s*:\s*-?\d/.test(text.slice(after, after + 48))
  );
}
