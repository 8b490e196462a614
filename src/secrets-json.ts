/**
 * Credentials inside JSON text that travels as a string: a span attribute another instrumentation filled with a
 * serialized object (OpenInference's `input.value`, the AI SDK's `ai.prompt`), a tool call's `arguments`, a request
 * body a user recorded as text. Key redaction (secrets.ts) reads the keys of objects, not the keys inside such text;
 * this module finds them there, and masks their values with the same rule.
 *
 * Cheap on the strings every call carries: only a string that opens with `{` or `[` is looked at, and then only its
 * colons are visited (each key of JSON text ends `"key":`), each key judged by the redactor's cached verdict. Text is
 * parsed only when a key must be masked (or it holds a URL with a user part or a query, which the string scrub
 * checks): then the parsed tree is masked and written back, in the text's own indentation.
 */

/** What decides which keys hold credentials (secrets.ts `KeyRedactor`). */
export interface KeyJudge {
  /** Whether a key ending in these two character codes may match (a cheap first check; true when unsure). */
  readonly mayEndWith: (prev: number, last: number) => boolean;
  matches(key: string): boolean;
  matchesIn(key: string, sibling: (key: string) => unknown): boolean;
}

/** How deep a parsed tree is masked: JSON.parse builds deeper trees, which nothing real sends as an attribute. */
const MAX_DEPTH = 64;

/** Whether `text` opens (after up to 16 whitespace characters) with `{` or `[`: it may be JSON. */
export function opensLikeJson(text: string): boolean {
  const end = Math.min(text.length, 16);
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) return true;
    if (c > 32) return false;
  }
  return false;
}

/**
 * `text` (JSON, or text that opens like it) with the values under credential keys replaced by `masked` and every
 * other string value passed through `scrub` (nested JSON, URLs, private keys); `text` itself when nothing changed.
 * Text that does not parse (cut short by an attribute limit, or not JSON after all) has the string and number values
 * of its credential keys masked where they stand.
 */
export function maskJsonText(text: string, judge: KeyJudge, scrub: (value: string) => string, masked: string): string {
  if (!worthParsing(text, judge)) return text;
  let tree: unknown;
  try {
    tree = JSON.parse(text);
  } catch {
    return maskLoosely(text, judge, masked);
  }
  if (tree === null || typeof tree !== "object" || !maskTree(tree, judge, scrub, masked, 0)) return text;
  return JSON.stringify(tree, null, indentOf(text));
}

/**
 * Visits every `"key":` of `text` (and `\"key\":` of JSON nested in its strings) from its colon; `visit` returns true
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
    const end = colon - 1;
    if (text.charCodeAt(end) !== 0x22) continue;
    const escaped = text.charCodeAt(end - 1) === 0x5c;
    const closing = escaped ? end - 1 : end;
    if (closing < 2 || !wanted(text.charCodeAt(closing - 2), text.charCodeAt(closing - 1))) continue;
    const quote = escaped ? '\\"' : '"';
    const open = text.lastIndexOf(quote, closing - 1);
    // Keys are short: a quote far back is the end of a value, not the start of this key.
    if (open === -1 || closing - open > 130) continue;
    if (visit(text.slice(open + quote.length, closing), colon, quote) === true) return;
  }
}

/**
 * Whether `text` has a key `judge` masks, or a URL (`://`) in it: what makes it worth parsing. {@link forEachKey}'s
 * scan written out, without its callbacks: it runs on every JSON-like string, most of which have nothing to mask.
 */
function worthParsing(text: string, judge: KeyJudge): boolean {
  for (let colon = text.indexOf(":"); colon !== -1; colon = text.indexOf(":", colon + 1)) {
    const end = colon - 1;
    if (text.charCodeAt(end) !== 0x22) {
      if (text.charCodeAt(colon + 1) === 0x2f && text.charCodeAt(colon + 2) === 0x2f && urlMayHoldSecret(text, colon))
        return true;
      continue;
    }
    const escaped = text.charCodeAt(end - 1) === 0x5c;
    const closing = escaped ? end - 1 : end;
    if (closing < 2 || !judge.mayEndWith(text.charCodeAt(closing - 2), text.charCodeAt(closing - 1))) continue;
    // The key's opening quote, a short way back (a loop: `lastIndexOf` costs more than the few reads).
    let open = closing - 1;
    const limit = Math.max(0, closing - 130);
    while (open >= limit && text.charCodeAt(open) !== 0x22) open--;
    // The key starts after that quote (of `\"` too, in JSON nested in a string).
    if (open >= limit && judge.matches(text.slice(open + 1, closing))) return true;
  }
  return false;
}

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
function maskTree(node: object, judge: KeyJudge, scrub: (value: string) => string, masked: string, depth: number) {
  if (depth >= MAX_DEPTH) return false;
  let changed = false;
  const record = node as Record<string, unknown>;
  const keys = Array.isArray(node) ? undefined : Object.keys(node);
  const count = keys === undefined ? (node as unknown[]).length : keys.length;
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
      if (maskTree(value, judge, scrub, masked, depth + 1)) changed = true;
    }
  }
  return changed;
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
  const cuts: [from: number, to: number, by: string][] = [];
  forEachKey(text, judge.mayEndWith, (key, colon, quote) => {
    if (!judge.matches(key)) return undefined;
    let from = colon + 1;
    while (from < text.length && text.charCodeAt(from) <= 32) from++;
    if (text.startsWith(quote, from)) {
      from += quote.length;
      const to = closingQuote(text, from, quote.length === 2);
      cuts.push([from, to === -1 ? text.length : to - (quote.length - 1), masked]);
    } else {
      const bare = /^[^\s,}\]\\"]+/.exec(text.slice(from, from + 256));
      if (bare && bare[0] !== "null") cuts.push([from, from + bare[0].length, `${quote}${masked}${quote}`]);
    }
    return undefined;
  });
  if (cuts.length === 0) return text;
  let out = "";
  let at = 0;
  for (const [from, to, by] of cuts) {
    if (from < at) continue;
    out += text.slice(at, from) + by;
    at = to;
  }
  return out + text.slice(at);
}

/**
 * The index of the `"` that closes a string opened before `from`, or -1 (text cut short). Backslashes before a quote
 * say whose it is: at the top level an even run (none) closes; in JSON nested in a string (`\"…\"`), a run of 1
 * (or 5: an escaped backslash of the inner text, then the closing `\"`) closes, and 3 is an inner escaped quote.
 */
function closingQuote(text: string, from: number, nested: boolean): number {
  for (let at = text.indexOf('"', from); at !== -1; at = text.indexOf('"', at + 1)) {
    let run = 0;
    while (at - run - 1 >= from && text.charCodeAt(at - run - 1) === 0x5c) run++;
    if (nested ? run % 4 === 1 : run % 2 === 0) return at;
  }
  return -1;
}
