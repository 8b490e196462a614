/**
 * Text search for `$contains`: what the query language searches in a field (its haystack), and the trigram index the
 * SQLite store keeps of the large fields (inputs, output, exception) so that a search reads the calls that can
 * match instead of every call.
 *
 * The index only narrows: a call is a candidate when its text holds every trigram of the needle, and the store then
 * checks the needle itself in SQL. So the index may over-match but must never miss. It holds {@link fold}ed text, and
 * a needle is folded the same way, which keeps both case-sensitive and case-insensitive searches inside the
 * candidates: `fold` maps each character on its own (lower case, and every sigma to σ, since JavaScript lowers a
 * final Σ to ς by context).
 */
import { stringifyExactJson } from "../exact-json.js";

/** The text `$contains` searches in a value: a string itself, anything else as JSON, a missing value as "". */
export function haystack(value: unknown): string {
  return typeof value === "string" ? value : value === undefined ? "" : stringifyExactJson(value);
}

/** Lower case, one character at a time (see the file comment). */
export const fold = (text: string): string => text.toLowerCase().replace(/ς/g, "σ");

/** Whether a needle can go to the index: surrogates (a split character) would not fold the same way. */
export const indexable = (needle: string): boolean => !/[\uD800-\uDFFF]/.test(needle);

/** The distinct trigrams of a (folded) needle; none when it is shorter than three characters. */
export function trigrams(folded: string): string[] {
  const chars = [...folded];
  const all = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) all.add(chars.slice(i, i + 3).join(""));
  return [...all];
}

/** The FTS5 query that requires every one of `terms`. */
export const matchAll = (terms: string[]): string => terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(" AND ");

/**
 * The indexed text of a call's start half: its inputs as stored (JSON, `{}` when there are none), op name, display
 * name and trace name, one per line.
 */
export function startText(call: {
  inputs: string | null;
  op_name: string | null;
  display_name: string | null;
  trace_name: string | null;
}): string {
  return [call.inputs ?? "{}", call.op_name ?? "", call.display_name ?? "null", call.trace_name ?? "null"]
    .map(fold)
    .join("\n");
}

/** The indexed text of a call's end half: output (a string itself, else its JSON) and exception. */
export function endText(output: string | null, exception: string | null): string {
  const out = output === null ? "null" : output.startsWith('"') ? (JSON.parse(output) as string) : output;
  return `${fold(out)}\n${fold(exception ?? "null")}`;
}
