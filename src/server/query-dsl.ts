/**
 * The service's Mongo-like query language, evaluated over JSON documents (calls, feedback rows), and dotted
 * sorting. Operators: `$and`, `$or`, `$not`, `$eq`, `$gt`, `$gte`, `$lt`, `$lte`, `$in`, `$contains`; operands
 * `$getField`, `$literal`, `$convert` (`double`, `int`, `string`, `bool`, `exists`) and `$size`.
 */
import type { Query, SortBy } from "../api/types/common.js";
import { stringifyExactJson } from "./exact-json.js";

/** A query the service cannot run; answered with 400 and this message as `reason`. */
export class InvalidQueryError extends Error {}

type Doc = Record<string, unknown>;

/** The value at a dotted path (`summary.usage.gpt-4o.total_tokens`); keys with dots are matched whole first. */
export function getPath(doc: unknown, path: string): unknown {
  if (typeof doc !== "object" || doc === null) return undefined;
  const record = doc as Doc;
  if (path in record) return record[path];
  const parts = path.split(".");
  for (let i = parts.length - 1; i > 0; i--) {
    const head = parts.slice(0, i).join(".");
    if (head in record) return getPath(record[head], parts.slice(i).join("."));
  }
  return undefined;
}

function operands(args: unknown, op: string, count?: number): unknown[] {
  if (!Array.isArray(args) || (count !== undefined && args.length !== count)) {
    throw new InvalidQueryError(`${op} expects ${count === undefined ? "a list" : `a list of ${count}`} operands`);
  }
  return args;
}

function convert(value: unknown, to: unknown): unknown {
  switch (to) {
    case "double": {
      const n = typeof value === "string" || typeof value === "bigint" ? Number(value) : value;
      return typeof n === "number" && !Number.isNaN(n) ? n : null;
    }
    case "int": {
      if (typeof value === "bigint") return value; // an integer past 2^53 (exact-json.ts) already is one
      const n = typeof value === "string" ? Number(value) : value;
      return typeof n === "number" && Number.isFinite(n) ? Math.trunc(n) : null;
    }
    case "string":
      return value === undefined || value === null
        ? null
        : typeof value === "string"
          ? value
          : stringifyExactJson(value);
    case "bool":
      return value === "true" ? true : value === "false" ? false : Boolean(value);
    case "exists":
      return value !== undefined && value !== null;
    default:
      throw new InvalidQueryError(`$convert: unknown target type ${JSON.stringify(to)}`);
  }
}

/** Evaluates an operand or an operation against `doc`. */
function evaluate(expr: unknown, doc: Doc): unknown {
  if (typeof expr !== "object" || expr === null || Array.isArray(expr)) {
    throw new InvalidQueryError(`expected an operation object, got ${JSON.stringify(expr)}`);
  }
  const keys = Object.keys(expr);
  if (keys.length !== 1) throw new InvalidQueryError(`an operation has exactly one key, got ${JSON.stringify(keys)}`);
  const op = keys[0]!;
  const args = (expr as Doc)[op];
  switch (op) {
    case "$literal":
      return args;
    case "$getField":
      if (typeof args !== "string") throw new InvalidQueryError("$getField expects a field path string");
      return getPath(doc, args);
    case "$convert": {
      const spec = args as { input?: unknown; to?: unknown };
      return convert(evaluate(spec?.input, doc), spec?.to);
    }
    case "$size": {
      const v = evaluate(args, doc);
      return Array.isArray(v) ? v.length : typeof v === "string" ? v.length : 0;
    }
    case "$and":
      return operands(args, op).every((a) => Boolean(evaluate(a, doc)));
    case "$or":
      return operands(args, op).some((a) => Boolean(evaluate(a, doc)));
    case "$not":
      return !evaluate(operands(args, op, 1)[0], doc);
    case "$eq": {
      const [a, b] = operands(args, op, 2).map((x) => evaluate(x, doc));
      return equal(a, b);
    }
    case "$gt":
    case "$gte":
    case "$lt":
    case "$lte": {
      const [a, b] = operands(args, op, 2).map((x) => evaluate(x, doc));
      const c = order(a, b);
      if (c === undefined) return false;
      return op === "$gt" ? c > 0 : op === "$gte" ? c >= 0 : op === "$lt" ? c < 0 : c <= 0;
    }
    case "$in": {
      const [needle, ...rest] = operands(args, op, 2);
      const value = evaluate(needle, doc);
      return rest.flat().some((x) => equal(value, evaluate(x, doc)));
    }
    case "$contains": {
      const spec = args as { input?: unknown; substr?: unknown; case_insensitive?: boolean };
      const input = evaluate(spec?.input, doc);
      const substr = evaluate(spec?.substr, doc);
      if (typeof substr !== "string") throw new InvalidQueryError("$contains: substr must be a string");
      const haystack = typeof input === "string" ? input : input === undefined ? "" : stringifyExactJson(input);
      return spec.case_insensitive ? haystack.toLowerCase().includes(substr.toLowerCase()) : haystack.includes(substr);
    }
    default:
      throw new InvalidQueryError(`unknown operator ${op}`);
  }
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((a === undefined || a === null) && (b === undefined || b === null)) return true;
  if (typeof a === "object" && typeof b === "object") return stringifyExactJson(a) === stringifyExactJson(b);
  return false;
}

const isNumeric = (v: unknown): v is number | bigint => typeof v === "number" || typeof v === "bigint";

/**
 * Orders two values of the same kind (numbers, strings, booleans); undefined when they do not compare. Integers past
 * 2^53 are `bigint`s (exact-json.ts), compared exactly with each other and with numbers.
 */
function order(a: unknown, b: unknown): number | undefined {
  if (isNumeric(a) && isNumeric(b)) return a < b ? -1 : a > b ? 1 : a <= b ? 0 : Number.NaN; // NaN: unordered, as `a - b` was
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  return undefined;
}

const OPERATORS = new Set(["$and", "$or", "$not", "$eq", "$gt", "$gte", "$lt", "$lte", "$in", "$contains"]);
const OPERANDS = new Set(["$literal", "$getField", "$convert", "$size"]);
const CONVERT_TARGETS = new Set(["double", "int", "string", "bool", "exists"]);

/**
 * Checks the shape of an expression without evaluating it: what {@link matches} would throw on for any document
 * (unknown operators, wrong operand counts, a `$getField` that is not a path, an unknown `$convert` target, a
 * literal `$contains` substring that is not a string). Stores that answer a query from indexes check it first, so a
 * malformed query is a 400 however many calls there are.
 */
export function checkQuery(query: Query | undefined): void {
  if (query) check(query.$expr);
}

function check(expr: unknown): void {
  if (typeof expr !== "object" || expr === null || Array.isArray(expr)) {
    throw new InvalidQueryError(`expected an operation object, got ${JSON.stringify(expr)}`);
  }
  const keys = Object.keys(expr);
  if (keys.length !== 1) throw new InvalidQueryError(`an operation has exactly one key, got ${JSON.stringify(keys)}`);
  const op = keys[0]!;
  const args = (expr as Doc)[op];
  if (!OPERATORS.has(op) && !OPERANDS.has(op)) throw new InvalidQueryError(`unknown operator ${op}`);
  switch (op) {
    case "$literal":
      return;
    case "$getField":
      if (typeof args !== "string") throw new InvalidQueryError("$getField expects a field path string");
      return;
    case "$convert": {
      const spec = args as { input?: unknown; to?: unknown };
      check(spec?.input);
      if (!CONVERT_TARGETS.has(spec.to as string))
        throw new InvalidQueryError(`$convert: unknown target type ${JSON.stringify(spec?.to)}`);
      return;
    }
    case "$size":
      check(args);
      return;
    case "$and":
    case "$or":
      for (const operand of operands(args, op)) check(operand);
      return;
    case "$not":
      check(operands(args, op, 1)[0]);
      return;
    case "$in": {
      const [needle, list] = operands(args, op, 2);
      check(needle);
      for (const item of Array.isArray(list) ? list : [list]) check(item);
      return;
    }
    case "$contains": {
      const spec = args as { input?: unknown; substr?: unknown };
      check(spec?.input);
      check(spec.substr);
      const literal = (spec.substr as { $literal?: unknown }).$literal;
      if ("$literal" in (spec.substr as object) && typeof literal !== "string")
        throw new InvalidQueryError("$contains: substr must be a string");
      return;
    }
    default:
      // $eq, $gt, $gte, $lt, $lte
      for (const operand of operands(args, op, 2)) check(operand);
  }
}

/** Whether `doc` matches `query` (no query matches everything). Throws {@link InvalidQueryError}. */
export function matches(query: Query | undefined, doc: Doc): boolean {
  if (!query) return true;
  return Boolean(evaluate(query.$expr, doc));
}

const rank = (v: unknown): number => (v === undefined || v === null ? 0 : isNumeric(v) ? 1 : 2);

/** A comparator over dotted fields; missing values sort first, as SQL NULLs do. */
export function compareBy(sortBy: SortBy[]): (a: object, b: object) => number {
  return (a, b) => {
    for (const { field, direction } of sortBy) {
      const x = getPath(a, field);
      const y = getPath(b, field);
      let c = rank(x) - rank(y);
      if (c === 0 && rank(x) !== 0) {
        c =
          order(x, y) ??
          (stringifyExactJson(x) ?? "").localeCompare(stringifyExactJson(y) ?? "", undefined, { numeric: true });
      }
      if (c !== 0) return direction === "desc" ? -c : c;
    }
    return 0;
  };
}
