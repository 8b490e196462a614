/**
 * Built-in scorers that need no LLM. Each returns a scorer object (`{ name, score }`) whose score is a boolean,
 * so its summary is `{ true_count, true_fraction }`. By default the expected value is the row's `expected` field
 * and the output is compared as is; `field` and `select` change both.
 *
 * An LLM-as-judge is an ordinary scorer that calls a wrapped client: its call (and its tokens) lands under the
 * scorer's call. See the LLM-as-judge scorer in docs/evaluations.md.
 */
import { refuseUnknownOptions } from "../config.js";
import type { Row, ScorerInput, ScorerObject } from "./types.js";

/** Options every built-in takes. */
export interface BuiltinOptions<N extends string> {
  /** The scorer's name (its key in the summary). */
  name?: N;
  /** The row field holding the expected value. Default `expected`. */
  field?: string;
  /** Picks what to compare out of the task's output (default: the output itself). */
  select?: (output: unknown) => unknown;
}

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  if (typeof value === "object") {
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

function picked(options: BuiltinOptions<string>, input: ScorerInput<Row, unknown>): { got: unknown; want: unknown } {
  return {
    got: options.select ? options.select(input.output) : input.output,
    want: input.row[options.field ?? "expected"],
  };
}

/** The output equals the expected value (as text; trimmed, and case-insensitive with `ignoreCase`). */
export function exactMatch<N extends string = "exact_match">(
  options: BuiltinOptions<N> & { ignoreCase?: boolean; trim?: boolean } = {},
): ScorerObject<Row, unknown, boolean, N> {
  refuseUnknownOptions("exactMatch()", options, ["name", "field", "select", "ignoreCase", "trim"]);
  const norm = (v: unknown) => {
    let s = text(v);
    if (options.trim !== false) s = s.trim();
    return options.ignoreCase ? s.toLowerCase() : s;
  };
  return {
    name: (options.name ?? "exact_match") as N,
    description: "The output equals the expected value.",
    score: (input) => {
      const { got, want } = picked(options, input);
      return norm(got) === norm(want);
    },
  };
}

/** The output contains the expected text (every one of them, when the field holds a list). Case-insensitive by default. */
export function contains<N extends string = "contains">(
  options: BuiltinOptions<N> & { caseSensitive?: boolean } = {},
): ScorerObject<Row, unknown, boolean, N> {
  refuseUnknownOptions("contains()", options, ["name", "field", "select", "caseSensitive"]);
  const norm = (v: unknown) => (options.caseSensitive ? text(v) : text(v).toLowerCase());
  return {
    name: (options.name ?? "contains") as N,
    description: "The output contains the expected text.",
    score: (input) => {
      const { got, want } = picked(options, input);
      const needles = Array.isArray(want) ? want : [want];
      const haystack = norm(got);
      return needles.every((needle) => haystack.includes(norm(needle)));
    },
  };
}

/** A Standard Schema (zod 4, valibot, arktype…): validated through its `~standard.validate`. */
export interface StandardSchemaLike {
  /** The Standard Schema interface: `validate` returns (or resolves to) a result with `issues` when it fails. */
  "~standard": { validate(value: unknown): unknown };
}

function parsedJson(value: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof value !== "string") return value === undefined ? { ok: false } : { ok: true, value };
  const trimmed = value
    .trim()
    .replace(/^```(?:json)?\s*/i, "")
    .replace(/\s*```$/, "");
  try {
    return { ok: true, value: JSON.parse(trimmed) };
  } catch {
    return { ok: false };
  }
}

/** The output is JSON (a string that parses, a fenced ```json block included, or a value already parsed). */
export function jsonParses<N extends string = "json_parses">(
  options: Omit<BuiltinOptions<N>, "field"> = {},
): ScorerObject<Row, unknown, boolean, N> {
  refuseUnknownOptions("jsonParses()", options, ["name", "select"]);
  return {
    name: (options.name ?? "json_parses") as N,
    description: "The output is valid JSON.",
    score: (input) => parsedJson(options.select ? options.select(input.output) : input.output).ok,
  };
}

/** The output is JSON that matches `schema`: a Standard Schema (zod 4…) or a predicate of the parsed value. */
export function matchesSchema<N extends string = "matches_schema">(
  schema: StandardSchemaLike | ((value: unknown) => boolean),
  options: Omit<BuiltinOptions<N>, "field"> = {},
): ScorerObject<Row, unknown, boolean, N> {
  refuseUnknownOptions("matchesSchema()", options, ["name", "select"]);
  const isStandard = schema !== null && typeof schema === "object" && "~standard" in schema;
  if (!isStandard && typeof schema !== "function")
    throw new TypeError("matchesSchema(schema): schema must be a Standard Schema (zod 4, valibot…) or a predicate.");
  return {
    name: (options.name ?? "matches_schema") as N,
    description: "The output is JSON matching the schema.",
    score: async (input) => {
      const parsed = parsedJson(options.select ? options.select(input.output) : input.output);
      if (!parsed.ok) return false;
      if (!isStandard) return Boolean((schema as (value: unknown) => boolean)(parsed.value));
      const result = (await (schema as StandardSchemaLike)["~standard"].validate(parsed.value)) as { issues?: unknown };
      return !result.issues;
    },
  };
}

function numberIn(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  const match = /[-+]?\d[\d,_]*(?:\.\d+)?(?:e[-+]?\d+)?/i.exec(text(value));
  if (!match) return undefined;
  const n = Number(match[0].replace(/[,_]/g, ""));
  return Number.isFinite(n) ? n : undefined;
}

/**
 * The output's number (the first one in its text) is within `tolerance` of the expected number: absolute by
 * default, relative to the expected value with `relative: true`. False when either has no number.
 */
export function numericTolerance<N extends string = "numeric_match">(
  options: BuiltinOptions<N> & { tolerance?: number; relative?: boolean } = {},
): ScorerObject<Row, unknown, boolean, N> {
  refuseUnknownOptions("numericTolerance()", options, ["name", "field", "select", "tolerance", "relative"]);
  const tolerance = options.tolerance ?? 1e-6;
  if (typeof tolerance !== "number" || !(tolerance >= 0))
    throw new TypeError(`numericTolerance(): tolerance must be a number ≥ 0, got ${String(tolerance)}.`);
  return {
    name: (options.name ?? "numeric_match") as N,
    description: `The output's number is within ${options.relative ? `${tolerance * 100}%` : tolerance} of the expected one.`,
    attributes: { tolerance, relative: options.relative ?? false },
    score: (input) => {
      const { got, want } = picked(options, input);
      const a = numberIn(got);
      const b = numberIn(want);
      if (a === undefined || b === undefined) return false;
      return Math.abs(a - b) <= (options.relative ? tolerance * Math.abs(b) : tolerance);
    },
  };
}
