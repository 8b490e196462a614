/**
 * The serializer's leaf helpers (tracing/serialize.ts): reading a value's class name, a function's name, a boxed
 * primitive or a thrown value without ever throwing, and cutting strings without splitting a surrogate pair.
 */
import { brandChecks } from "../runtime.js";

const types = brandChecks();

/** Keeps the first `n` code units (never splitting a surrogate pair) and says how many were dropped. */
export function truncate(s: string, n: number): string {
  const code = s.charCodeAt(n - 1);
  const cut = code >= 0xd800 && code <= 0xdbff ? n - 1 : n;
  // A plain slice would be a view that keeps the whole original (say 50 MB) alive while the output sits in a queue;
  // slicing a concatenation makes V8 copy just the kept prefix.
  const kept = ` ${s.slice(0, cut)}`.slice(1);
  return `${kept}…[truncated ${s.length - cut} chars]`;
}

export function take(iterator: Iterator<unknown>, n: number): unknown[] {
  const out: unknown[] = [];
  while (out.length < n) {
    const step = iterator.next();
    if (step.done) break;
    out.push(step.value);
  }
  return out;
}

export function describe(v: unknown): string {
  if (typeof v === "symbol") return `[${String(v)}]`;
  let name: unknown;
  try {
    name = (v as { name?: unknown }).name; // a static getter or Proxy trap may throw
  } catch {}
  return typeof name === "string" && name !== "" ? `[Function ${name}]` : "[Function]";
}

export function className(proto: unknown): string | undefined {
  try {
    const name: unknown = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === "string" && name !== "" && name !== "Object" ? name : undefined;
  } catch {
    return undefined;
  }
}

export function unbox(v: object): unknown {
  if (types.isStringObject(v)) return String.prototype.valueOf.call(v);
  if (types.isNumberObject(v)) return Number.prototype.valueOf.call(v);
  if (types.isBooleanObject(v)) return Boolean.prototype.valueOf.call(v);
  if (types.isBigIntObject(v)) return BigInt.prototype.valueOf.call(v);
  return Symbol.prototype.valueOf.call(v);
}

/** `"[Unserializable: <message>]"`, reading the thrown value as carefully as the value that threw. */
export function unserializable(err: unknown): string {
  let message = "unknown error";
  try {
    const m: unknown = typeof err === "object" && err !== null ? (err as { message?: unknown }).message : err;
    if (typeof m !== "object" && typeof m !== "function" && m !== undefined) message = String(m);
  } catch {}
  return `[Unserializable: ${message.length > 200 ? `${message.slice(0, 200)}…` : message}]`;
}
