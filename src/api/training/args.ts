/** Argument checks shared by the training endpoints: they throw before anything is sent. */
import { ValidationError } from "../../errors.js";
import { describeValue } from "../base.js";

/** Requires a plain object (a request body or parameter bag). */
export function requireObject(value: unknown, method: string): void {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ValidationError(`${method} expects a request object, got ${value === null ? "null" : typeof value}.`);
  }
}

/** Checks a page size: an integer 1..100 (the service's bounds), or undefined for the server default. */
export function checkLimit(limit: unknown, method: string): number | undefined {
  if (limit === undefined) return undefined;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new ValidationError(
      `${method}: limit must be an integer from 1 to 100, got ${describeValue(limit)}.`,
      "limit",
    );
  }
  return limit;
}

/** Checks an optional cursor: a non-empty string. */
export function checkCursor(after: unknown, method: string): string | undefined {
  if (after === undefined) return undefined;
  if (typeof after !== "string" || after === "") {
    throw new ValidationError(`${method}: after must be a non-empty id, got ${describeValue(after)}.`, "after");
  }
  return after;
}
