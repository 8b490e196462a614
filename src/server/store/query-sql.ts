/**
 * The query language (query-dsl.ts) compiled to SQL, so SQLite answers it from its indexes instead of the service
 * reading every document. A compiled expression is `exact` when SQLite decides it exactly as {@link matches} would
 * on the document; otherwise it is a necessary condition only (it narrows the rows, and the caller still runs
 * the query on what is left). What does not compile at all (dotted paths into inputs, `$convert`, `$size`, …) is
 * left to the caller: it still works, by reading every row the rest of the query lets through.
 *
 * Exactness rests on how the language compares (query-dsl.ts): `$eq` is strict equality with null and a missing
 * value equal; `$gt`… compare two strings or two numbers and are false for anything else; `$contains` searches a
 * string or the JSON of a value ({@link haystack}). Every compiled predicate is 0 or 1, never NULL, so `$not`
 * keeps its meaning.
 */
import type { Query } from "../../api/types/common.js";
import type { SqlValue } from "./sqlite-driver.js";
import { fold, indexable } from "./text-index.js";

/** A field the compiler knows: its SQL expression, and what it holds. */
export interface Field {
  sql: string;
  /** `json`: searched by `$contains` only (equality and order on whole objects are left to the caller). */
  kind: "text" | "int" | "null" | "json";
  /** Whether the value may be null (missing). */
  nullable: boolean;
  /**
   * The SQL text that `$contains` searches (the field's {@link haystack}); without it, `$contains` on the field
   * is not compiled.
   */
  haystack?: string;
  /** The trigram table that narrows a search in this field (text-index.ts). */
  fts?: string;
}

export interface Compiled {
  sql: string;
  params: SqlValue[];
  exact: boolean;
  /**
   * A SELECT of the `seq`s every matching row is among (a text index's candidates), when there is one: an `$or`
   * whose every branch has one reads the union of those rows only, where SQLite would otherwise test each branch's
   * subquery on every call of the project.
   */
  candidates?: { sql: string; params: SqlValue[] };
  /**
   * With `candidates`: the expression's test of a row that is among them (`sql` is both), so that an `$or` that reads
   * the union of its branches' candidates tests each row without looking each branch's candidates up again. Its
   * `exact` is the expression's.
   */
  within?: { sql: string; params: SqlValue[] };
}

export interface CompileContext {
  fields: Record<string, Field>;
  /**
   * The trigram tables, when FTS5 loaded: `pending` selects the rows they do not hold yet, and `match` gives the
   * FTS5 query that narrows a search for a folded needle in `table` — undefined when it would not narrow much
   * (its trigrams are common, or there are none): then the rows are read in order, which stops early under a limit.
   */
  fts?: { pending: string; match(table: string, folded: string): string | undefined } | undefined;
}

type Op = Record<string, unknown>;
const TRUE: Compiled = { sql: "1", params: [], exact: true };
const FALSE: Compiled = { sql: "0", params: [], exact: true };
const isOp = (v: unknown): v is Op => typeof v === "object" && v !== null && !Array.isArray(v);
const only = (v: unknown): [string, unknown] | undefined => {
  if (!isOp(v)) return undefined;
  const keys = Object.keys(v);
  return keys.length === 1 ? [keys[0]!, v[keys[0]!]] : undefined;
};
const fieldOf = (v: unknown, ctx: CompileContext): Field | undefined => {
  const op = only(v);
  return op?.[0] === "$getField" && typeof op[1] === "string" ? ctx.fields[op[1]] : undefined;
};
const literalOf = (v: unknown): { value: unknown } | undefined => {
  const op = only(v);
  return op?.[0] === "$literal" ? { value: op[1] } : undefined;
};
/** Strings that JavaScript and SQLite order alike (UTF-16 and UTF-8 orders differ only from U+D800 up). */
const comparable = (s: string): boolean => !/[\uD800-\uFFFF]/.test(s);
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test is for ASCII, control characters included
const ascii = (s: string): boolean => /^[\u0000-\u007f]*$/.test(s);

/** `field == value` as the language decides it. */
function equals(field: Field, value: unknown): Compiled | undefined {
  if (field.kind === "json") return undefined;
  if (value === null || value === undefined) {
    return field.kind === "null"
      ? TRUE
      : field.nullable
        ? { sql: `${field.sql} IS NULL`, params: [], exact: true }
        : FALSE;
  }
  const fits = field.kind === "text" ? typeof value === "string" : field.kind === "int" && typeof value === "number";
  return fits ? { sql: `${field.sql} IS ?`, params: [value as string | number], exact: true } : FALSE;
}

const FLIP: Record<string, string> = { $gt: "<", $gte: "<=", $lt: ">", $lte: ">=" };
const SQL_ORDER: Record<string, string> = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" };

function compare(op: string, args: unknown, ctx: CompileContext): Compiled | undefined {
  if (!Array.isArray(args) || args.length !== 2) return undefined;
  let field = fieldOf(args[0], ctx);
  let literal = literalOf(args[1]);
  let sqlOp = SQL_ORDER[op]!;
  if (!field || !literal) {
    field = fieldOf(args[1], ctx);
    literal = literalOf(args[0]);
    sqlOp = FLIP[op]!;
  }
  if (!field || !literal || field.kind === "json") return undefined;
  const value = literal.value;
  const fits =
    (field.kind === "text" && typeof value === "string" && comparable(value)) ||
    (field.kind === "int" && typeof value === "number");
  if (!fits) {
    // Strings against numbers, or anything against null, never compare: false. Exotic strings are left to the caller.
    return typeof value === "string" && field.kind === "text" ? undefined : FALSE;
  }
  return {
    sql: `(${field.sql} IS NOT NULL AND ${field.sql} ${sqlOp} ?)`,
    params: [value as string | number],
    exact: true,
  };
}

function contains(args: unknown, ctx: CompileContext): Compiled | undefined {
  if (!isOp(args)) return undefined;
  const field = fieldOf(args.input, ctx);
  const literal = literalOf(args.substr);
  if (!field?.haystack || typeof literal?.value !== "string") return undefined;
  const needle = literal.value;
  const caseless = Boolean(args.case_insensitive);
  const parts: Compiled[] = [];
  let candidates: Compiled["candidates"];
  if (field.fts && ctx.fts && indexable(needle)) {
    const match = ctx.fts.match(field.fts, fold(needle));
    if (match) {
      candidates = {
        sql: `SELECT rowid FROM ${field.fts} WHERE ${field.fts} MATCH ? UNION ALL ${ctx.fts.pending}`,
        params: [match],
      };
      parts.push({ sql: `seq IN (${candidates.sql})`, params: candidates.params, exact: false });
    }
  }
  if (!caseless && indexable(needle)) {
    parts.push({ sql: `instr(${field.haystack}, ?) > 0`, params: [needle], exact: true });
  } else if (caseless && ascii(needle)) {
    // SQLite's lower() changes ASCII letters only; the two other characters JavaScript lowers into ASCII are
    // İ (to i and a combining dot) and the Kelvin sign (to k). An ASCII needle meets nothing else.
    parts.push({
      sql: `instr(replace(replace(lower(${field.haystack}), '\u0130', 'i\u0307'), '\u212A', 'k'), ?) > 0`,
      params: [needle.toLowerCase()],
      exact: true,
    });
  }
  if (parts.length === 0) return undefined;
  const tests = parts.slice(candidates ? 1 : 0);
  return {
    sql: parts.map((p) => p.sql).join(" AND "),
    params: parts.flatMap((p) => p.params),
    exact: parts.some((p) => p.exact),
    ...(candidates
      ? {
          candidates,
          within: tests.length
            ? { sql: tests.map((p) => p.sql).join(" AND "), params: tests.flatMap((p) => p.params) }
            : TRUE,
        }
      : {}),
  };
}

function inList(args: unknown, ctx: CompileContext): Compiled | undefined {
  if (!Array.isArray(args) || args.length !== 2 || !Array.isArray(args[1])) return undefined;
  const field = fieldOf(args[0], ctx);
  const values = args[1].map(literalOf);
  if (!field || values.some((v) => v === undefined)) return undefined;
  const all = values.map((v) => equals(field, v!.value));
  if (all.some((c) => c === undefined)) return undefined;
  const matches = (all as Compiled[]).filter((c) => c !== FALSE);
  if (matches.length === 0) return FALSE;
  if (matches.some((c) => c === TRUE)) return TRUE;
  const listed = matches.filter((c) => c.params.length === 1).map((c) => c.params[0]!);
  const parts: string[] = [];
  if (listed.length) parts.push(`${field.sql} IN (SELECT value FROM json_each(?))`);
  if (matches.some((c) => c.params.length === 0)) parts.push(`${field.sql} IS NULL`);
  const params = listed.length ? [JSON.stringify(listed)] : [];
  return { sql: `(${parts.join(" OR ")})`, params, exact: true };
}

function combine(parts: Compiled[], joiner: " AND " | " OR ", exact: boolean): Compiled {
  return {
    sql: `(${parts.map((p) => p.sql).join(joiner)})`,
    params: parts.flatMap((p) => p.params),
    exact,
  };
}

/** Compiles an expression; undefined when nothing of it narrows the rows. */
export function compileExpr(expr: unknown, ctx: CompileContext): Compiled | undefined {
  const op = only(expr);
  if (!op) return undefined;
  const [name, args] = op;
  switch (name) {
    case "$literal":
      return args ? TRUE : FALSE;
    case "$and": {
      if (!Array.isArray(args)) return undefined;
      const parts = args.map((a) => compileExpr(a, ctx));
      const known = parts.filter((p): p is Compiled => p !== undefined);
      if (known.length === 0) return undefined;
      return combine(known, " AND ", known.length === parts.length && known.every((p) => p.exact));
    }
    case "$or": {
      if (!Array.isArray(args) || args.length === 0) return undefined;
      const parts = args.map((a) => compileExpr(a, ctx));
      if (parts.some((p) => p === undefined)) return undefined;
      const branches = parts as Compiled[];
      const either = combine(
        branches,
        " OR ",
        branches.every((p) => p.exact),
      );
      if (!branches.every((p) => p.candidates)) return either;
      // The union of the branches' candidates, each distinct lookup once (the viewer's filter searches one needle
      // in five fields, three of them through the same trigram table), then each branch's test within them.
      const lookups = new Map(branches.map((p) => [JSON.stringify(p.candidates), p.candidates!]));
      const candidates = {
        sql: [...lookups.values()].map((c) => c.sql).join(" UNION ALL "),
        params: [...lookups.values()].flatMap((c) => c.params),
      };
      const within = combine(
        branches.map((p) => ({ ...p.within!, exact: p.exact })),
        " OR ",
        either.exact,
      );
      return {
        sql: `seq IN (${candidates.sql}) AND ${within.sql}`,
        params: [...candidates.params, ...within.params],
        exact: either.exact,
        candidates,
        within,
      };
    }
    case "$not": {
      if (!Array.isArray(args) || args.length !== 1) return undefined;
      const inner = compileExpr(args[0], ctx);
      return inner?.exact
        ? { sql: `NOT ${inner.sql.startsWith("(") ? inner.sql : `(${inner.sql})`}`, params: inner.params, exact: true }
        : undefined;
    }
    case "$eq": {
      if (!Array.isArray(args) || args.length !== 2) return undefined;
      const field = fieldOf(args[0], ctx) ?? fieldOf(args[1], ctx);
      const literal = fieldOf(args[0], ctx) ? literalOf(args[1]) : literalOf(args[0]);
      return field && literal ? equals(field, literal.value) : undefined;
    }
    case "$gt":
    case "$gte":
    case "$lt":
    case "$lte":
      return compare(name, args, ctx);
    case "$in":
      return inList(args, ctx);
    case "$contains":
      return contains(args, ctx);
    default:
      return undefined;
  }
}

/** Compiles a query: `undefined` (no query, or nothing compiled) leaves every row to the caller. */
export function compileQuery(query: Query | undefined, ctx: CompileContext): Compiled | undefined {
  return query ? compileExpr(query.$expr, ctx) : undefined;
}
