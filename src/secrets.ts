/**
 * Credentials never leave the process by accident. One place decides what counts as a secret: values under
 * credential-like keys (in payloads, call attributes and span attributes), a URL's password and credential query
 * parameters, a PEM private key wherever it sits, and `Bearer …` / `key=…` text in error messages and log lines.
 * Used by the serializer (tracing/serialize.ts), the processor's exit check of span attributes (otel/span-redact.ts)
 * and tracewire's logger.
 */

import { escapedEndings, maskJsonText, opensLikeEncodedJson, opensLikeJson } from "./secrets-json.js";

/** What replaces a redacted value. */
export const REDACTED = "REDACTED";

/**
 * Keys whose values are replaced by `"REDACTED"` by default. A key matches an entry when, ignoring case, `-` and
 * `_`, it equals the entry or ends with it: `apiKey`, `OPENAI_API_KEY` and `x-api-key` all match `api_key`;
 * `client_secret` matches `secret`; `Set-Cookie` matches `cookie`; `Helicone-Auth` and `x-auth` match `auth`;
 * `AWS_SECRET_ACCESS_KEY` matches `secret_access_key`. Matching is by ending only, so a plural or a name that goes on
 * after the word (`api_keys`, `secret_key`, `credential` beside `credentials`) needs its own entry. Pass your own list
 * as `redactKeys` (spread this one to extend it; `[]` turns key redaction off).
 */
export const DEFAULT_REDACT_KEYS: readonly string[] = Object.freeze([
  "api_key",
  "api_keys",
  "authorization",
  "auth",
  "password",
  "passwd",
  "passphrase",
  "secret",
  "secret_key",
  "secret_access_key",
  "token",
  "cookie",
  "private_key",
  "credential",
  "credentials",
]);

/** Ignoring case, `-` and `_`: how keys and entries are compared. */
function normalize(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, "");
}

// Keys repeat endlessly (every request has `model`, `messages`, …), so a key's verdict is computed once; the cache is
// cleared when it grows past this, so a stream of unique keys cannot grow it without bound.
const MAX_CACHED_KEYS = 4096;

/**
 * Decides which keys hold credentials, from a list of entries (see {@link DEFAULT_REDACT_KEYS} for the rule).
 * Immutable after construction; `matches` is a cached lookup on the hot path.
 */
export class KeyRedactor {
  /** The normalized entries; empty means key redaction is off. */
  private readonly entries: readonly string[];
  private readonly cache = new Map<string, boolean>();
  /** Shortest entry: a shorter key cannot match (normalizing only removes characters). */
  private readonly minLength: number;
  /** ASCII codes a matching key can end with: each entry's last letter, either case, and `-` / `_`. */
  private readonly lastChars = new Uint8Array(128);

  constructor(keys: readonly string[] = DEFAULT_REDACT_KEYS) {
    this.entries = [...new Set(keys.map(normalize).filter((k) => k !== ""))];
    this.minLength = Math.min(...this.entries.map((e) => e.length));
    for (const entry of this.entries) {
      const last = entry.at(-1)!;
      for (const c of [last, last.toUpperCase(), "-", "_"])
        if (c.charCodeAt(0) < 128) this.lastChars[c.charCodeAt(0)] = 1;
      const prev = entry.at(-2);
      if (prev === undefined) continue;
      for (const p of [prev, prev.toUpperCase()])
        for (const c of [last, last.toUpperCase()])
          if (p.charCodeAt(0) < 128 && c.charCodeAt(0) < 128)
            this.lastPairs[(p.charCodeAt(0) << 7) | c.charCodeAt(0)] = 1;
    }
    this.shortEntry = this.entries.some((entry) => entry.length < 2);
  }

  /** ASCII pairs a matching key can end with (`[prev << 7 | last]`): entries' last two letters, any case; escapes'. */
  private readonly lastPairs = escapedEndings();
  /** Whether an entry is one character long (then any pair can end a match). */
  private readonly shortEntry: boolean;

  /**
   * Whether a key whose last two characters have these codes may match: a first check for text scanned for keys
   * (secrets-json.ts), which reads a key only when it passes. True when unsure (a separator, non-ASCII). A property,
   * bound: it is handed on as a function.
   */
  readonly mayEndWith = (prev: number, last: number): boolean =>
    this.shortEntry ||
    last >= 128 ||
    prev >= 128 ||
    last === 0x2d ||
    last === 0x5f ||
    prev === 0x2d ||
    prev === 0x5f ||
    this.lastPairs[(prev << 7) | last] === 1;

  /** Whether key redaction is on at all. */
  get active(): boolean {
    return this.entries.length > 0;
  }

  /** Whether the value under `key` must be replaced by {@link REDACTED}. */
  matches(key: string): boolean {
    // Most keys (`role`, `model`, `content`, `query`, `title`) are ruled out by their length or last two characters,
    // before any lookup.
    const n = key.length;
    if (n < this.minLength) return false;
    const last = key.charCodeAt(n - 1);
    if (last < 128 && this.lastChars[last] === 0) return false;
    if (n >= 2 && !this.mayEndWith(key.charCodeAt(n - 2), last)) return false;
    let verdict = this.cache.get(key);
    if (verdict === undefined) {
      const k = normalize(key);
      verdict = this.entries.some((entry) => k.endsWith(entry));
      if (this.cache.size >= MAX_CACHED_KEYS) this.cache.clear();
      this.cache.set(key, verdict);
    }
    return verdict;
  }

  /**
   * {@link matches}, except for a model's word pieces: an OpenAI logprob entry is `{token, logprob, …}`, and its
   * `token` is text the model produced, not a credential. `sibling` reads another key of the same object.
   */
  matchesIn(key: string, sibling: (key: string) => unknown): boolean {
    if (!this.matches(key)) return false;
    return !(normalize(key) === "token" && typeof sibling("logprob") === "number");
  }
}

/** The redactor of the default list, shared (it is immutable). */
export const DEFAULT_REDACTOR = new KeyRedactor();

// `scheme://user:password@host` → `scheme://user:REDACTED@host` (a user name alone is kept: it is not a secret).
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*):[^\s/?#@]*@/gi;
// `?key=…` / `&key=…`: how Google's APIs take an API key in a URL (other credential names are KEY_VALUE's).
const URL_KEY_PARAM = /([?&#]key=)[^\s&#"'<>]+/gi;
// `Bearer abc`, `Basic abc`, `Token abc` (an Authorization header's value written into text). Schemes are
// case-insensitive (RFC 9110): `bearer` is masked in any case, the word hardly occurs otherwise. `basic` and `token`
// are common words ("the basic plan", "token limit"), so only their capitalised and upper-case forms are masked
// anywhere; in lower case they need a credential key before them (KEY_VALUE's scheme group).
const AUTH_SCHEME = /\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]+/gi;
const CAPITALISED_SCHEME = /^(?:Basic|BASIC|Token|TOKEN)$/;
// `api_key=…`, `"apiKey": "…"`, `password: …`, `authorization: basic …` in free text (query strings, logged objects,
// config dumps, headers): the key (the names of DEFAULT_REDACT_KEYS), the separator, an optional auth scheme, the value.
const KEY_VALUE =
  /\b([\w-]*(?:api[-_]?keys?|auth|authorization|password|passwd|passphrase|secret|secret[-_]?(?:access[-_]?)?key|token|cookie|private[-_]?key|credentials?))(["']?\s*[:=]\s*["']?)((?:bearer|basic|token)\s+)?([^\s"'&,;(){}[\]]+)/gi;

// A PEM private key block (`-----BEGIN [RSA |EC |ENCRYPTED |OPENSSH ]PRIVATE KEY-----` … its END line; PGP's
// `PRIVATE KEY BLOCK` too). A block cut short (a truncated string or message) is masked to the end of the text: what
// is left of a key is still secret. Public keys and certificates are not matched.
const PRIVATE_KEY_BLOCK =
  /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g;
/** The shortest text that can hold a block: its BEGIN line alone (cut short). */
const PRIVATE_KEY_MIN_LENGTH = "-----BEGIN PRIVATE KEY-----".length;

/**
 * `text` with every PEM private key block in it replaced by {@link REDACTED}. A key travels under whatever name its
 * holder picked (a Google service account's JWT client keeps it as `key`), so the value itself is checked, not its
 * key. Cheap enough for every payload string: short strings are not searched, others once for `PRIVATE KEY`.
 */
export function scrubPrivateKeys(text: string): string {
  return text.length >= PRIVATE_KEY_MIN_LENGTH && text.includes("PRIVATE KEY")
    ? text.replace(PRIVATE_KEY_BLOCK, REDACTED)
    : text;
}

/**
 * Masks the credentials free text can carry: the known secrets ({@link maskKnownSecrets}), a private key block, a
 * URL's password, an `Authorization` scheme's value and `key=value` pairs under credential-like names. For error
 * messages, stack traces and log lines, where no key says what a value is. Cheap when there is nothing to mask (a
 * few regex scans of the text).
 */
export function scrubText(text: string): string {
  return scrubPrivateKeys(maskKnownSecrets(text))
    .replace(URL_PASSWORD, `$1:${REDACTED}@`)
    .replace(URL_KEY_PARAM, `$1${REDACTED}`)
    .replace(AUTH_SCHEME, (all, scheme: string) =>
      scheme.toLowerCase() === "bearer" || CAPITALISED_SCHEME.test(scheme) ? `${scheme} ${REDACTED}` : all,
    )
    .replace(KEY_VALUE, (_all, key: string, sep: string, scheme: string | undefined, value: string) => {
      const kept =
        value === REDACTED ||
        // After a scheme the value is the credential; without one, token counts and a bare scheme are not.
        (scheme === undefined &&
          (/^(?:max|prompt|completion|input|output|total|reasoning|cached)/i.test(key) ||
            /^\d+$/.test(value) ||
            /^(?:Bearer|Basic|Token)$/i.test(value)));
      return `${key}${sep}${scheme ?? ""}${kept ? value : REDACTED}`;
    });
}

// A string that is itself a URL with a password: anchored, so checking any other string fails at its first bytes.
const STARTS_WITH_URL_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:[^\s/?#@]*@/i;

// A query or fragment parameter (`?name=value`, `&name=value`, `#access_token=value`), as written.
const URL_PARAM = /([?&#])([^=&#\s]+)=([^&#\s]+)/g;

/**
 * A string value (a payload string, a span attribute) with what marks it as a credential wherever it sits masked: a
 * whole-string URL's password and the values of its query (and fragment) parameters that `redactor` names or that are
 * `key` (how Google's APIs take an API key) — of a path with its query (`/search?token=…`) too — and any private key
 * block; in JSON text (a string that opens with `{` or `[`: a serialized object, a tool call's arguments), the values
 * under credential keys, as in an object (secrets-json.ts); a string that is a known secret whole is
 * masked whole ({@link isKnownSecret}) unless key redaction is off (`redactKeys: []`: the user asked for what they
 * put, as it is). Other strings are returned unchanged (`!==` says whether anything was
 * masked). Cheap enough for every payload string: text that does not open with `scheme://` costs a few character
 * reads before the private key check.
 */
export function scrubString(text: string, redactor: KeyRedactor): string {
  if (redactor.active) {
    if (isKnownSecret(text)) return REDACTED;
    if (opensLikeJson(text) || opensLikeEncodedJson(text))
      return scrubPrivateKeys(maskJsonText(text, redactor, scrubberOf(redactor), REDACTED));
  }
  let out = text;
  if (startsLikeUrl(text)) {
    if (STARTS_WITH_URL_PASSWORD.test(out)) out = out.replace(URL_PASSWORD, `$1:${REDACTED}@`);
    out = scrubUrlParams(out, redactor);
  } else if (text.charCodeAt(0) === 0x2f) {
    // A path with its query (`/api/items?api_key=…`): the request target servers record (Next's `http.target`).
    out = scrubUrlParams(out, redactor);
  }
  return scrubPrivateKeys(out);
}

// One scrub function per redactor, for the strings inside JSON text (made once: a redactor lives as long as its settings).
const scrubbers = new WeakMap<KeyRedactor, (value: string) => string>();

function scrubberOf(redactor: KeyRedactor): (value: string) => string {
  let scrub = scrubbers.get(redactor);
  if (scrub === undefined) {
    scrub = (value) => scrubString(value, redactor);
    scrubbers.set(redactor, scrub);
  }
  return scrub;
}

/** `url` with the values of its credential parameters masked; names are compared decoded (`api%5Fkey`). */
function scrubUrlParams(url: string, redactor: KeyRedactor): string {
  let start = url.indexOf("?");
  const hash = url.indexOf("#");
  if (start < 0 || (hash >= 0 && hash < start)) start = hash;
  if (start < 0) return url;
  let changed = false;
  const rest = url.slice(start).replace(URL_PARAM, (all, sep: string, name: string, value: string) => {
    if (value === REDACTED || !isSecretParam(decodeParamName(name), redactor)) return all;
    changed = true;
    return `${sep}${name}=${REDACTED}`;
  });
  return changed ? url.slice(0, start) + rest : url;
}

function decodeParamName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, " "));
  } catch {
    return name;
  }
}

/** Whether a URL parameter holds a credential: a name the redactor matches, or `key` (Google's API key). */
function isSecretParam(name: string, redactor: KeyRedactor): boolean {
  return name.toLowerCase() === "key" || redactor.matches(name);
}

/**
 * Whether `text` opens with `scheme://` (a letter, then letters, digits, `+`, `.` or `-`, within 32 characters): the
 * few character reads that spare the regex on nearly every string (`chat`, `gpt-4o-mini`, a sentence).
 */
function startsLikeUrl(text: string): boolean {
  const end = Math.min(text.length - 2, 32);
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i) | 0x20; // ASCII letters to lower case; ':' and '/' are unchanged by the bit
    if (c === 0x3a) return i > 0 && text.charCodeAt(i + 1) === 0x2f && text.charCodeAt(i + 2) === 0x2f;
    const letter = c >= 0x61 && c <= 0x7a;
    if (!letter && (i === 0 || !((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2e || c === 0x2d))) return false;
  }
  return false;
}

/** A URL's text with its password and credential query parameters masked ({@link scrubString}'s rule). Never throws. */
export function redactUrl(url: URL, redactor: KeyRedactor = DEFAULT_REDACTOR): string {
  try {
    if (!url.password && !hasSecretParam(url, redactor)) return url.href;
    const copy = new URL(url.href);
    if (copy.password) copy.password = REDACTED;
    for (const key of [...copy.searchParams.keys()])
      if (isSecretParam(key, redactor)) copy.searchParams.set(key, REDACTED);
    return copy.href;
  } catch {
    return "[URL]";
  }
}

function hasSecretParam(url: URL, redactor: KeyRedactor): boolean {
  if (!url.search) return false;
  for (const key of url.searchParams.keys()) if (isSecretParam(key, redactor)) return true;
  return false;
}

/**
 * Known secrets: exact credential strings the process holds — tracewire's own API key, the keys of the LLM clients
 * it wraps, the values of credential-named environment variables `init()` reads — masked by {@link scrubText}
 * wherever they occur. Patterns cannot catch a key a server quotes bare ("Incorrect API key provided: sk-…"); an
 * exact match can. They live in tracewire's process-wide state (`globalState().knownSecrets`, otel/state.ts), so every
 * bundled copy of tracewire masks what any copy registered; this module sits below otel/, so it reads that field
 * through the state's global key. The list is replaced whole on every change, never mutated: a copy's cached pattern
 * stays valid for as long as the list it was built from is the current one.
 */
const GLOBAL_STATE_KEY = Symbol.for("tracewire.global.v1");

/**
 * Shortest value registered as a known secret. Masking a short string everywhere would mangle text (a key `k` would
 * mask every letter k), and a real credential is never that short.
 */
export const MIN_KNOWN_SECRET_LENGTH = 8;

/** Longest value registered: an error message that quotes a credential quotes a key or token, not a whole file. */
export const MAX_KNOWN_SECRET_LENGTH = 4096;

/** How many known secrets are kept (the oldest go first): an app that makes a client per tenant key cannot grow it. */
export const MAX_KNOWN_SECRETS = 128;

// One pattern per list: the list's values, longest first (so one that contains another is masked whole).
const knownPatterns = new WeakMap<readonly string[], RegExp>();

/**
 * The one empty list: callers compare lists by identity (the attribute cache re-checks a cached value when the list
 * changes), so "none" must be the same object every time — a fresh `[]` per call made every cached pair stale.
 */
const NO_SECRETS: readonly string[] = Object.freeze([]);

/** The current known secrets (registered through otel/known-secrets.ts), oldest first; empty when there are none. */
export function knownSecrets(): readonly string[] {
  const state = (globalThis as { [GLOBAL_STATE_KEY]?: { knownSecrets?: readonly string[] } })[GLOBAL_STATE_KEY];
  return state?.knownSecrets ?? NO_SECRETS;
}

/** `text` with every known secret replaced by {@link REDACTED}. One regex scan; none when no secret is known. */
export function maskKnownSecrets(text: string): string {
  const secrets = knownSecrets();
  if (secrets.length === 0) return text;
  let pattern = knownPatterns.get(secrets);
  if (pattern === undefined) {
    const escaped = [...secrets]
      .sort((a, b) => b.length - a.length)
      .map((s) => s.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&"));
    pattern = new RegExp(escaped.join("|"), "g");
    knownPatterns.set(secrets, pattern);
  }
  return text.replace(pattern, REDACTED);
}

/** The current known secrets as a set, and which lengths they have: built once per list (lists are never changed). */
interface KnownIndex {
  readonly list: readonly string[];
  readonly values: ReadonlySet<string>;
  /** `lengths[n] === 1` when some known secret is `n` characters long. */
  readonly lengths: Uint8Array;
}
let knownIndex: KnownIndex | undefined;

/** Whether `c` is a character `trim()` removes that a key read from a file or a header may carry (ASCII only). */
const edgeSpace = (c: number) => c <= 32;

/**
 * Whether `text` is, whole (surrounding whitespace aside), one of the {@link knownSecrets}: the value of a field
 * whose name says nothing (`{ openaiKey: process.env.OPENAI_API_KEY }`, an attribute `app.client.key`), which key
 * names cannot catch. For nearly every string it costs a length check: only a string as long as a known secret is
 * looked up. A secret inside longer text is {@link scrubText}'s job (error texts and log lines); payload text is not
 * searched for it, which would cost a scan of every string of every call.
 */
export function isKnownSecret(text: string): boolean {
  const list = knownSecrets();
  if (list.length === 0) return false;
  let index = knownIndex;
  if (index === undefined || index.list !== list) {
    const lengths = new Uint8Array(MAX_KNOWN_SECRET_LENGTH + 1);
    for (const secret of list) lengths[secret.length] = 1;
    index = { list, values: new Set(list), lengths };
    knownIndex = index;
  }
  const n = text.length;
  if (n < MIN_KNOWN_SECRET_LENGTH) return false;
  if (n <= MAX_KNOWN_SECRET_LENGTH && index.lengths[n] === 1 && index.values.has(text)) return true;
  // A key read from a file keeps its newline; registered values are trimmed.
  if (!edgeSpace(text.charCodeAt(0)) && !edgeSpace(text.charCodeAt(n - 1))) return false;
  const trimmed = text.trim();
  return index.lengths[trimmed.length] === 1 && index.values.has(trimmed);
}

/**
 * The value to register as a known secret, or undefined when `value` is not one: not a string, or (trimmed: a key read
 * from a file keeps its newline) shorter than {@link MIN_KNOWN_SECRET_LENGTH} or longer than
 * {@link MAX_KNOWN_SECRET_LENGTH}.
 */
export function knownSecretValue(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed.length >= MIN_KNOWN_SECRET_LENGTH && trimmed.length <= MAX_KNOWN_SECRET_LENGTH ? trimmed : undefined;
}
