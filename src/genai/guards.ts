/** Type guards for the untyped requests, responses and chunks the GenAI chat tracing reads field by field. */

/** An object read field by field. */
export type Obj = Record<string, unknown>;

/** Any non-null object (arrays included: callers check `Array.isArray` where it matters). */
export const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null;

/** A finite number: attributes never carry `NaN` or `Infinity`. */
export const isNum = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
