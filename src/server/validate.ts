/**
 * Request validation in the service's own terms: request wrappers are strict (an unknown top-level field is an
 * error), inner records ignore extra keys, and every problem is reported as FastAPI does, with status 422 and
 * `{"detail": [{"type", "loc", "msg", "input"}]}` (pydantic v2 error types and messages).
 */

/** A field's type; `Model` for a nested record, `{ list }` for a list of something. */
export type FieldType =
  | "str"
  | "int"
  | "float"
  | "bool"
  | "dict"
  | "list"
  | "any"
  | "datetime"
  | Model
  | { list: FieldType }
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
}

/** A 422 waiting to be sent. */
export class RequestValidationError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; "));
  }
}

export const req = (type: FieldType): FieldSpec => ({ type, required: true });

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const spec = (s: FieldSpec | FieldType): FieldSpec => (typeof s === "object" && "type" in s ? s : { type: s });

function checkValue(value: unknown, type: FieldType, loc: (string | number)[], out: ValidationIssue[]): void {
  const fail = (kind: string, msg: string) => out.push({ type: kind, loc, msg, input: value });
  if (typeof type === "string") {
    switch (type) {
      case "str":
        if (typeof value !== "string") fail("string_type", "Input should be a valid string");
        return;
      case "int":
        if (typeof value !== "number" || !Number.isInteger(value)) fail("int_type", "Input should be a valid integer");
        return;
      case "float":
        if (typeof value !== "number") fail("float_type", "Input should be a valid number");
        return;
      case "bool":
        if (typeof value !== "boolean") fail("bool_type", "Input should be a valid boolean");
        return;
      case "dict":
        if (!isRecord(value)) fail("dict_type", "Input should be a valid dictionary");
        return;
      case "list":
        if (!Array.isArray(value)) fail("list_type", "Input should be a valid list");
        return;
      case "datetime":
        if (typeof value !== "string" || Number.isNaN(Date.parse(value)))
          fail("datetime_from_date_parsing", "Input should be a valid datetime");
        return;
      default:
        return;
    }
  }
  if ("literal" in type) {
    if (typeof value !== "string" || !type.literal.includes(value)) {
      const options = type.literal.map((o) => `'${o}'`);
      const last = options.pop();
      fail("literal_error", `Input should be ${options.length ? `${options.join(", ")} or ${last}` : last}`);
    }
    return;
  }
  if ("list" in type) {
    if (!Array.isArray(value)) return void fail("list_type", "Input should be a valid list");
    for (const [i, item] of value.entries()) checkValue(item, type.list, [...loc, i], out);
    return;
  }
  if ("union" in type) {
    if (!isRecord(value)) return void fail("model_attributes_type", "Input should be a valid dictionary or object");
    const tag = value[type.discriminator] ?? type.defaultTag;
    const model = type.union.find((m) => m.tag === tag);
    if (!model) {
      const tags = type.union.map((m) => `'${m.tag}'`).join(", ");
      return void out.push({
        type: "union_tag_invalid",
        loc,
        msg: `Input tag '${String(tag)}' found using '${type.discriminator}' does not match any of the expected tags: ${tags}`,
        input: value,
      });
    }
    checkModel(value, model, [...loc, String(tag)], out);
    return;
  }
  checkModel(value, type, loc, out);
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
    checkValue(v, field.type, [...loc, name], out);
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
