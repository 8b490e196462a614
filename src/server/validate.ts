/**
 * Request validation in the service's own terms: request wrappers are strict (an unknown top-level field is an
 * error), inner records ignore extra keys, and every problem is reported as FastAPI does, with status 422 and
 * `{"detail": [{"type", "loc", "msg", "input"}]}` (pydantic v2 error types and messages). Scalars are parsed in
 * pydantic's lax mode, as the service does: `"2"` is the integer 2 and `"true"` is true; the body handed on holds
 * the parsed values.
 */

/** A field's type; `Model` for a nested record, `{ list }` for a list of something. */
export type FieldType =
  | "str"
  | "int"
  /** A non-negative integer (`Field(ge=0)`). */
  | "uint"
  | "float"
  | "bool"
  | "dict"
  | "list"
  | "any"
  | "datetime"
  | Model
  | { list: FieldType }
  | { dictOf: FieldType }
  | { literal: string[] }
  | { union: TaggedModel[]; discriminator: string; defaultTag?: string };

export interface FieldSpec {
  type: FieldType;
  /** Required fields must be present (and not null, unless typed `any`). */
  required?: boolean;
}

export interface Model {
  /** Strict models (request wrappers) refuse unknown fields. */
  strict: boolean;
  fields: Record<string, FieldSpec | FieldType>;
}

/** A variant of a discriminated union: `tag` is the discriminator value that selects it. */
export interface TaggedModel extends Model {
  tag: string;
}

export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** A 422 waiting to be sent. */
export class RequestValidationError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; "));
  }
}

export const req = (type: FieldType): FieldSpec => ({ type, required: true });

/** A date and time without a zone designator (`2026-01-05T10:00:00`, `2026-01-05 10:00:00.5`). */
const ZONELESS = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;

/**
 * Milliseconds of a datetime string, NaN when it is none. One without a zone is UTC, as the service stores it
 * (`Date.parse` would read it in this machine's time zone).
 */
function parseUtc(text: string): number {
  return Date.parse(ZONELESS.test(text.trim()) ? `${text.trim()}Z` : text);
}
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const spec = (s: FieldSpec | FieldType): FieldSpec => (typeof s === "object" && "type" in s ? s : { type: s });

const INTEGER = /^\s*[+-]?\d+\s*$/;
const NUMBER = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;
const TRUE = new Set(["true", "1", "yes", "on", "t", "y"]);
const FALSE = new Set(["false", "0", "no", "off", "f", "n"]);

/** Checks one value; returns it as pydantic's lax mode parses it (numeric strings to numbers, and so on). */
function checkValue(value: unknown, type: FieldType, loc: (string | number)[], out: ValidationIssue[]): unknown {
  const fail = (kind: string, msg: string, extra: Partial<ValidationIssue> = {}) => {
    out.push({ type: kind, loc, msg, input: value, ...extra });
    return value;
  };
  if (typeof type === "string") {
    switch (type) {
      case "str":
        return typeof value === "string" ? value : fail("string_type", "Input should be a valid string");
      case "int":
      case "uint": {
        // An integer past 2^53 (a bigint, exact-json.ts) is rounded here: these fields (counts, steps, limits) are
        // computed with, and mixing a bigint into number arithmetic throws. Only free-form values keep it exact.
        let n = typeof value === "bigint" ? Number(value) : value;
        if (typeof value === "string") {
          if (!INTEGER.test(value))
            return fail("int_parsing", "Input should be a valid integer, unable to parse string as an integer");
          n = Number(value);
        } else if (typeof n !== "number") return fail("int_type", "Input should be a valid integer");
        if (!Number.isInteger(n))
          return fail("int_from_float", "Input should be a valid integer, got a number with a fractional part");
        if (type === "uint" && (n as number) < 0)
          return fail("greater_than_equal", "Input should be greater than or equal to 0", { ctx: { ge: 0 } });
        // A limit or offset (the only `uint`s) past 2^53 is no limit, or past the end: SQLite takes 64-bit ones only.
        return type === "uint" ? Math.min(n as number, Number.MAX_SAFE_INTEGER) : n;
      }
      case "float":
        if (typeof value === "string" && NUMBER.test(value)) return Number(value);
        if (typeof value === "string")
          return fail("float_parsing", "Input should be a valid number, unable to parse string as a number");
        if (typeof value === "bigint") return Number(value);
        return typeof value === "number" ? value : fail("float_type", "Input should be a valid number");
      case "bool":
        if (typeof value === "boolean") return value;
        if (TRUE.has(String(value).toLowerCase()) && typeof value !== "object") return true;
        if (FALSE.has(String(value).toLowerCase()) && typeof value !== "object") return false;
        return typeof value === "string"
          ? fail("bool_parsing", "Input should be a valid boolean, unable to interpret input")
          : fail("bool_type", "Input should be a valid boolean");
      case "dict":
        return isRecord(value) ? value : fail("dict_type", "Input should be a valid dictionary");
      case "list":
        return Array.isArray(value) ? value : fail("list_type", "Input should be a valid list");
      case "datetime": {
        const ms = typeof value === "string" ? parseUtc(value) : Number.NaN;
        if (Number.isNaN(ms)) return fail("datetime_from_date_parsing", "Input should be a valid datetime");
        return new Date(ms).toISOString();
      }
      default:
        return value;
    }
  }
  if ("literal" in type) {
    if (typeof value !== "string" || !type.literal.includes(value)) {
      const options = type.literal.map((o) => `'${o}'`);
      const last = options.pop();
      fail("literal_error", `Input should be ${options.length ? `${options.join(", ")} or ${last}` : last}`);
    }
    return value;
  }
  if ("list" in type) {
    if (!Array.isArray(value)) return fail("list_type", "Input should be a valid list");
    for (const [i, item] of value.entries()) value[i] = checkValue(item, type.list, [...loc, i], out);
    return value;
  }
  if ("dictOf" in type) {
    if (!isRecord(value)) return fail("dict_type", "Input should be a valid dictionary");
    for (const [k, item] of Object.entries(value)) value[k] = checkValue(item, type.dictOf, [...loc, k], out);
    return value;
  }
  if ("union" in type) {
    if (!isRecord(value)) return fail("model_attributes_type", "Input should be a valid dictionary or object");
    const tag = value[type.discriminator] ?? type.defaultTag;
    const model = type.union.find((m) => m.tag === tag);
    if (!model) {
      const tags = type.union.map((m) => `'${m.tag}'`).join(", ");
      return fail(
        "union_tag_invalid",
        `Input tag '${String(tag)}' found using '${type.discriminator}' does not match any of the expected tags: ${tags}`,
      );
    }
    checkModel(value, model, [...loc, String(tag)], out);
    return value;
  }
  checkModel(value, type, loc, out);
  return value;
}

function checkModel(value: unknown, model: Model, loc: (string | number)[], out: ValidationIssue[]): void {
  if (!isRecord(value)) {
    out.push({
      type: "model_attributes_type",
      loc,
      msg: "Input should be a valid dictionary or object to extract fields from",
      input: value,
    });
    return;
  }
  for (const [name, raw] of Object.entries(model.fields)) {
    const field = spec(raw);
    const v = value[name];
    if (v === undefined) {
      if (field.required) out.push({ type: "missing", loc: [...loc, name], msg: "Field required", input: value });
      continue;
    }
    // Optional fields are `Optional[...]`: null is fine. A required one takes null only when typed `Any`.
    if (v === null && (!field.required || field.type === "any")) continue;
    value[name] = checkValue(v, field.type, [...loc, name], out);
  }
  if (model.strict) {
    for (const name of Object.keys(value)) {
      if (!(name in model.fields))
        out.push({
          type: "extra_forbidden",
          loc: [...loc, name],
          msg: "Extra inputs are not permitted",
          input: value[name],
        });
    }
  }
}

/** Validates a request body against its model; throws {@link RequestValidationError} listing every problem. */
export function validateBody<T>(body: unknown, model: Model): T {
  const issues: ValidationIssue[] = [];
  checkModel(body, model, ["body"], issues);
  if (issues.length) throw new RequestValidationError(issues);
  return body as T;
}
