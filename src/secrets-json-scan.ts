/**
 * The scans of JSON text the key masking (secrets-json.ts) reads without a parse: where a quote of JSON nested in
 * strings starts and closes, where an object or array closes, what a credential's value spans, and the header names
 * of lists of strings. Cut from secrets-json.ts along this seam to keep each file short.
 */

/** What decides which keys hold credentials (secrets.ts `KeyRedactor`). */
export interface KeyJudge {
  /**
   * Whether a key ending in these two character codes may match (a cheap first check; true when unsure, and for the
   * last two digits of an escape, `"passwor\u0064"`).
   */
  readonly mayEndWith: (prev: number, last: number) => boolean;
  matches(key: string): boolean;
  matchesIn(key: string, sibling: (key: string) => unknown): boolean;
}

/**
 * Whether `key`, as it stands in the text, is a credential key: its escapes (`api\u005fkey`, a key nested in a
 * string) read first when it has any. Called only for keys whose ending may match.
 */
export function keyMatches(judge: KeyJudge, key: string): boolean {
  if (judge.matches(key)) return true;
  if (!key.includes("\\")) return false;
  const plain = key
    .replace(/\\+u([0-9a-fA-F]{4})/g, (_all, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/\\+(.)/g, "$1");
  return judge.matches(plain);
}

/**
 * The start of the quote that ends at the `"` at `end`: the backslashes before it, when they make the quote of JSON
 * nested in strings (1 at one level, `\"`; 3 at two, `\\\"`; 2^n − 1 at n); `end` itself for a plain quote, or -1 for a
 * run of another length (a string's escaped backslash before its closing quote), which no key or name ends in.
 */
export function quoteStart(text: string, end: number): number {
  let start = end;
  while (text.charCodeAt(start - 1) === 0x5c) start--;
  const run = end - start;
  // No cap on the depth (one at 63 backslashes hid JSON seven strings down, whole or cut short): the run is read anyway.
  return run === 0 ? end : (run & (run + 1)) === 0 ? start : -1;
}

/**
 * The index of the first character at or after `at` that is not whitespace: JSON's own, or its escaped form in JSON
 * nested in strings (`\n`, `\t`, `\r`; `\\n` two levels down), which pretty-printed nested JSON puts between a
 * list's items. Without the escaped form, `JSON.stringify(headers, null, 2)` inside a string hid its names. Used
 * only between tokens, where no string's content stands.
 */
function skipSpace(text: string, at: number): number {
  for (;;) {
    const c = text.charCodeAt(at);
    if (c <= 32)
      at++; // NaN past the end stops it
    else if (c !== 0x5c) return at;
    else {
      let end = at + 1;
      while (text.charCodeAt(end) === 0x5c) end++;
      const e = text.charCodeAt(end);
      if (e !== 0x6e && e !== 0x74 && e !== 0x72) return at;
      at = end + 1;
    }
  }
}

/** How far a header list's walk reads an object or list item for its end (a header's value is short). */
const MAX_ITEM_SKIP = 256;

/** A bare item of a list: a number, `true`, `false` or `null` (sticky: read where `lastIndex` is set). */
const SCALAR = /-?\d[\d.eE+-]*|true|false|null/y;

/**
 * Visits every header name of `text`'s lists of strings (`\"name\"` in JSON nested in a string) that `judge` masks: in
 * a pair as fetch, undici and `Headers` take headers (`[["Authorization", "Bearer …"]]`), or at a name's place (first,
 * third, …) of undici's flat list (`["content-type", "…", "authorization", "Bearer …"]`), where no key holds the
 * credential. A list is walked from its `[` (when a string opens it, so a list of objects costs one look) while its
 * items are strings, bare values or short objects and lists (`["content-length", 42, "authorization", …]`: a number
 * before the name no longer ends the walk early, which left the names after it unseen, whole or cut short). The whole
 * list is walked before any name is visited: a list that closes after an odd count of items is not a header list (the
 * exact rule, tracing/serialize.ts and a parse agree), so masking it where it stands would no longer give the parsed
 * tree's JSON, and the text was then rewritten whole (integers past 2^53, `1.0` lost). A list that does not close (text
 * cut short, a long object item) errs on the side of masking. `visit` gets the index of the item after the name, and
 * the name's quote; it returns true to stop, and so does this function then.
 */
export function forEachCredentialPair(
  text: string,
  judge: KeyJudge,
  visit: (from: number, quote: string) => boolean | undefined,
): boolean {
  const values: number[] = [];
  for (let open = text.indexOf("["); open !== -1; open = text.indexOf("[", open + 1)) {
    let at = skipSpace(text, open + 1);
    let quoteEnd = at;
    while (text.charCodeAt(quoteEnd) === 0x5c) quoteEnd++;
    if (text.charCodeAt(quoteEnd) !== 0x22 || quoteStart(text, quoteEnd) !== at) continue;
    const quote = text.slice(at, quoteEnd + 1);
    values.length = 0;
    let count = 0; // items, once the list is seen to close
    for (let place = 0; ; place++) {
      let after: number; // the index after the item
      let name = false;
      if (text.startsWith(quote, at)) {
        const from = at + quote.length;
        const close = closingQuote(text, from, quote);
        if (close === -1) break;
        const end = close - (quote.length - 1); // the name's end: before the backslashes of `\"` when nested
        after = close + 1;
        // A one-character name can match too (an entry of one's own list: `redactKeys: ["x"]`); the ending check then
        // reads the opening quote as the character before it, and `mayEndWith` is true for any ending of such a list.
        name =
          (place & 1) === 0 &&
          end > from &&
          end - from <= 128 &&
          judge.mayEndWith(text.charCodeAt(end - 2), text.charCodeAt(end - 1)) &&
          keyMatches(judge, text.slice(from, end));
      } else if (text.charCodeAt(at) === 0x7b || text.charCodeAt(at) === 0x5b) {
        // An object or list item (what the serializer masks after a name too): skipped when it closes within a
        // short way, so the names after it are seen; a long one ends the walk (a bound: every list's walk may meet one).
        const limit = Math.min(text.length, at + MAX_ITEM_SKIP);
        after = closingBracket(text, at, quote, limit);
        if (after >= limit) break;
      } else {
        SCALAR.lastIndex = at;
        const bare = SCALAR.exec(text);
        if (bare === null) break;
        after = at + bare[0].length;
      }
      const comma = skipSpace(text, after);
      if (text.charCodeAt(comma) === 0x5d) count = place + 1;
      if (text.charCodeAt(comma) !== 0x2c) break;
      at = skipSpace(text, comma + 1);
      if (name) values.push(at);
    }
    if ((count & 1) === 1) continue;
    for (const from of values) if (visit(from, quote) === true) return true;
  }
  return false;
}

/**
 * How to mask the value that starts at `from` (after whitespace): a string's content (to its closing quote, or the
 * end of text cut short), an object or array whole, a bare value (a number, `true`); undefined for `null`. The last
 * field is the index after a string's closing quote (-1 for anything else), for the word-piece check.
 */
export function valueCut(
  text: string,
  from: number,
  quote: string,
  masked: string,
): [from: number, to: number, by: string, after: number] | undefined {
  while (from < text.length && text.charCodeAt(from) <= 32) from++;
  const first = text.charCodeAt(from);
  if (text.startsWith(quote, from)) {
    from += quote.length;
    const to = closingQuote(text, from, quote);
    return to === -1 ? [from, text.length, masked, -1] : [from, to - (quote.length - 1), masked, to + 1];
  }
  if (first === 0x7b || first === 0x5b) {
    // An object or array: masked whole, to its closing bracket (or the end of text cut short inside it).
    return [from, closingBracket(text, from, quote), `${quote}${masked}${quote}`, -1];
  }
  const bare = /^[^\s,}\]\\"]+/.exec(text.slice(from, from + 256));
  return bare && bare[0] !== "null" ? [from, from + bare[0].length, `${quote}${masked}${quote}`, -1] : undefined;
}

/**
 * The index of the `"` that closes a string opened by `quote` before `from`, or -1 (text cut short). Backslashes
 * before a quote say whose it is: at the top level an even run (none) closes; in JSON nested in a string (`\"…\"`,
 * `quote` with one backslash), a run of 1 (or 5: an escaped backslash of the inner text, then the closing `\"`)
 * closes, and 3 is an inner escaped quote; n levels down (2^n − 1 backslashes), a run of 2^n − 1 modulo 2^(n+1).
 */
export function closingQuote(text: string, from: number, quote: string): number {
  const own = quote.length - 1;
  for (let at = text.indexOf('"', from); at !== -1; at = text.indexOf('"', at + 1)) {
    let run = 0;
    while (at - run - 1 >= from && text.charCodeAt(at - run - 1) === 0x5c) run++;
    if (run % (2 * own + 2) === own) return at;
  }
  return -1;
}

/**
 * The index after the bracket that closes the object or array opening at `from`, skipping strings (`\"…\"` in JSON
 * nested in a string, where a quote of fewer backslashes than `quote`'s ends the string the nested JSON is in); the
 * end of text cut short.
 * With `limit`, the scan stops there (`limit` is returned, as for text cut short).
 */
export function closingBracket(text: string, from: number, quote: string, limit = text.length): number {
  const own = quote.length - 1;
  let depth = 0;
  for (let at = from; at < limit; at++) {
    const c = text.charCodeAt(at);
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) return at + 1;
    } else if (c === 0x22) {
      let run = 0;
      while (at - run - 1 >= from && text.charCodeAt(at - run - 1) === 0x5c) run++;
      if (run < own) return at - run; // the end of the string the nested JSON is in
      if (run % (2 * own + 2) !== own) continue;
      const close = closingQuote(text, at + 1, quote);
      if (close === -1) return text.length;
      at = close;
    }
  }
  return limit;
}
