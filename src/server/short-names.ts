/**
 * How the tracing service shortens the names of calls it builds from OTLP spans, so that `tracewire dev` names them
 * alike: an op name longer than 128 characters is cut at a delimiter and tagged with the first 4 hex digits of the
 * sha256 of the whole name (`openai.chat.completions:1ff5`), so that two long names stay apart; a display name
 * longer than 1024 characters is cut at a delimiter and ends in `...`. Lengths count code points, as Python's do.
 */
import { createHash } from "node:crypto";

/** Longest op name and display name the service keeps whole. */
export const MAX_OP_NAME = 128;
export const MAX_DISPLAY_NAME = 1024;

const DELIMITERS = new Set([",", ";", "|", " ", "/", "?", "."]);

const length = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};
const head = (s: string, n: number): string => Array.from(s).slice(0, Math.max(0, n)).join("");

/**
 * `name` cut to at most `max` code points, preferably where a delimiter (`, ; | space / ? .`) begins, followed by
 * `suffix`. A delimiter run is kept before the suffix when `keepDelimiter` (and the suffix does not start with it).
 */
export function shortenName(name: string, max: number, suffix = "...", keepDelimiter = true): string {
  if (length(name) <= max) return name;
  // Words and delimiters, in order (each delimiter its own part).
  const parts: string[] = [];
  let word = "";
  for (const c of name) {
    if (DELIMITERS.has(c)) {
      if (word) parts.push(word);
      parts.push(c);
      word = "";
    } else word += c;
  }
  if (word) parts.push(word);
  const room = max - length(suffix);
  if (parts.length <= 1 || length(parts[0]!) > room) return head(name, room) + suffix;
  let short = parts[0]!;
  for (let i = 1; i < parts.length; i++) {
    let delimiter = "";
    while (i < parts.length && DELIMITERS.has(parts[i]!)) delimiter += parts[i++];
    const next = delimiter + (parts[i] ?? "");
    const end = !suffix ? "" : suffix.startsWith(delimiter) || !keepDelimiter ? suffix : delimiter + suffix;
    if (length(short) + length(next) >= max - length(end)) return short + end;
    short += next;
  }
  return short;
}

/** An OTLP span's name as the op name of its call. */
export function opNameOf(name: string): string {
  if (!name) return "unnamed";
  if (length(name) <= MAX_OP_NAME) return name;
  const tag = createHash("sha256").update(name).digest("hex").slice(0, 4);
  return shortenName(name, MAX_OP_NAME, `:${tag}`, false);
}

/** A `wandb.display_name` as the display name of its call. */
export const displayNameOf = (name: string): string => shortenName(name, MAX_DISPLAY_NAME);
