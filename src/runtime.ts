/**
 * The JavaScript runtime tracewire runs in, and the few things that differ between runtimes: Node's built-in
 * modules, the environment, timers that can be unref'ed, bytes as text. The one place that asks; everything else
 * calls these helpers instead of touching `process`, `Buffer` or `node:*` itself, so that every module evaluates
 * on Cloudflare Workers, Vercel's edge, Deno and Bun as it does on Node (no Node built-in imported at the top of a
 * module, no global read at module scope, no timer or random id made at import time).
 *
 * Node's built-ins are reached through `process.getBuiltinModule()` (Node ≥ 20.16, Bun, Deno, Workers with
 * `nodejs_compat`) on first use: bundlers never see an import, so an edge bundle neither fails on nor carries them.
 */

/** Where tracewire is running. `node` is Node.js itself (not Bun or Deno, which also set `process.versions.node`). */
export type RuntimeName = "node" | "bun" | "deno" | "workerd" | "edge-light" | "other";

type ProcessLike = {
  env?: Record<string, string | undefined>;
  versions?: Record<string, string | undefined>;
  version?: string;
  platform?: string;
  arch?: string;
  release?: { name?: string };
  getBuiltinModule?: (id: string) => unknown;
};

/** The global `process` object, when the runtime has one (edge and Workers without compat may not). */
export function processObject(): ProcessLike | undefined {
  let p: unknown;
  try {
    p = (globalThis as { process?: unknown }).process;
  } catch {
    return undefined; // a sandbox whose global getter refuses: as if there were none
  }
  return p !== null && typeof p === "object" ? (p as ProcessLike) : undefined;
}

let detected: RuntimeName | undefined;

/** The runtime, detected once by the globals each one is known to set. */
export function runtimeName(): RuntimeName {
  detected ??= detect();
  return detected;
}

function detect(): RuntimeName {
  const g = globalThis as { Deno?: unknown; Bun?: unknown; EdgeRuntime?: unknown; navigator?: { userAgent?: unknown } };
  if (g.navigator?.userAgent === "Cloudflare-Workers") return "workerd";
  if (typeof g.EdgeRuntime === "string") return "edge-light";
  if (typeof g.Deno === "object" && g.Deno !== null) return "deno";
  const versions = processObject()?.versions;
  if (typeof g.Bun === "object" || typeof versions?.bun === "string") return "bun";
  if (typeof versions?.node === "string" && processObject()?.release?.name === "node") return "node";
  return "other";
}

/** `runtime/version` for the User-Agent header, e.g. `node/v20.20.2` or `workerd`. */
export function runtimeTag(): string {
  const p = processObject();
  const name = runtimeName();
  try {
    if (name === "node") return `node/${p?.version ?? "unknown"} (${p?.platform}; ${p?.arch})`;
    if (name === "bun") return `bun/${p?.versions?.bun ?? "unknown"}`;
    if (name === "deno")
      return `deno/${(globalThis as { Deno?: { version?: { deno?: string } } }).Deno?.version?.deno ?? "unknown"}`;
  } catch {
    // A locked-down runtime that refuses to say: the name alone does.
  }
  return name;
}

const builtins = new Map<string, unknown>();

/**
 * A Node built-in module (`node:zlib`, `node:async_hooks`, …), or undefined where the runtime has none (edge) or
 * refuses it. Read through `process.getBuiltinModule`, so no bundler sees an import; cached.
 */
export function nodeBuiltin<T>(id: `node:${string}`): T | undefined {
  if (builtins.has(id)) return builtins.get(id) as T | undefined;
  let mod: unknown;
  try {
    mod = processObject()?.getBuiltinModule?.(id);
  } catch {
    mod = undefined;
  }
  builtins.set(id, mod);
  return mod as T | undefined;
}

type Env = Record<string, string | undefined>;
const guarded = new WeakMap<object, Env>();

/**
 * The process environment to read settings from when no `env` option was given: `process.env` where there is
 * one, else an empty object. Reading it is what needs Deno's `--allow-env`; an explicit `env` option never does.
 *
 * An environment that refuses to be read is an empty one, never an exception out of a wrapper or `init()`: Deno
 * without `--allow-env` throws on every read, a locked-down edge's `process.env` getter throws, a Proxy over a secrets
 * manager may throw. So reads go through a view that answers `undefined` (no keys) where the real one throws; made
 * once per environment object, and only read when a client, wrapper or `init()` is set up, never per call.
 */
export function processEnv(): Env {
  let env: unknown;
  try {
    env = processObject()?.env;
  } catch {
    return {};
  }
  if (env === null || (typeof env !== "object" && typeof env !== "function")) return {};
  let view = guarded.get(env);
  if (!view) {
    view = readableEnv(env as Env);
    guarded.set(env, view);
  }
  return view;
}

/** A read-only view of `env` whose reads answer nothing instead of throwing (see {@link processEnv}). */
function readableEnv(env: Env): Env {
  const read = (key: PropertyKey): unknown => {
    try {
      return Reflect.get(env, key);
    } catch {
      return undefined;
    }
  };
  // The target is a fresh extensible object, so the descriptors made up below break no Proxy invariant.
  return new Proxy({} as Env, {
    get: (_, key) => read(key),
    has: (_, key) => read(key) !== undefined,
    ownKeys: () => {
      try {
        return Reflect.ownKeys(env);
      } catch {
        return [];
      }
    },
    getOwnPropertyDescriptor: (_, key) => {
      const value = read(key);
      return value === undefined ? undefined : { value, writable: false, enumerable: true, configurable: true };
    },
  });
}

/** A timer that does not keep the process alive, where timers can be unref'ed (Node, Bun, Deno); numbers pass. */
export function unref<T>(timer: T): T {
  if (timer !== null && typeof timer === "object") (timer as { unref?: () => void }).unref?.();
  return timer;
}

/** Node's `Buffer` where the runtime has it as a global (Node, Bun, Deno), else undefined (edge, Workers). */
export function nodeBuffer(): typeof Buffer | undefined {
  const b = (globalThis as { Buffer?: typeof Buffer }).Buffer;
  return typeof b === "function" ? b : undefined;
}

const utf8 = new TextDecoder();
const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Bytes as UTF-8 text (malformed sequences become U+FFFD). */
export function bytesToText(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}

/** Bytes as standard base64 (with padding). */
export function toBase64(bytes: Uint8Array): string {
  const B = nodeBuffer();
  if (B) return B.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += BASE64[n >> 18]! + BASE64[(n >> 12) & 63]! + BASE64[(n >> 6) & 63]! + BASE64[n & 63]!;
  }
  if (i < bytes.length) {
    const rest = bytes.length - i;
    const n = (bytes[i]! << 16) | (rest === 2 ? bytes[i + 1]! << 8 : 0);
    out += BASE64[n >> 18]! + BASE64[(n >> 12) & 63]! + (rest === 2 ? BASE64[(n >> 6) & 63]! : "=") + "=";
  }
  return out;
}

/** The chunks joined into one array: a `Buffer` where the runtime has one (so callers on Node keep getting one). */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  const B = nodeBuffer();
  if (B) return B.concat(chunks);
  let length = 0;
  for (const chunk of chunks) length += chunk.byteLength;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

let bufferClass: typeof Buffer | null | undefined;

/**
 * Where `needle` first occurs in `haystack` at or after `from`, or -1: Node's native search where there is a
 * `Buffer`, else a scan.
 */
export function indexOfBytes(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  bufferClass ??= nodeBuffer() ?? null;
  if (bufferClass) {
    return bufferClass.from(haystack.buffer, haystack.byteOffset, haystack.byteLength).indexOf(needle, from);
  }
  const first = needle[0];
  const last = haystack.length - needle.length;
  outer: for (let i = haystack.indexOf(first!, from); i !== -1 && i <= last; i = haystack.indexOf(first!, i + 1)) {
    for (let j = 1; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** The brand checks of Node's `util.types` that the serializer uses (true only for the real thing, not look-alikes). */
export interface BrandChecks {
  isAnyArrayBuffer(v: unknown): v is ArrayBufferLike;
  isSharedArrayBuffer(v: unknown): boolean;
  isDataView(v: unknown): v is DataView;
  isDate(v: unknown): v is Date;
  isMap(v: unknown): v is Map<unknown, unknown>;
  isSet(v: unknown): v is Set<unknown>;
  isRegExp(v: unknown): v is RegExp;
  isNativeError(v: unknown): v is Error;
  isBoxedPrimitive(v: unknown): boolean;
  isStringObject(v: unknown): boolean;
  isNumberObject(v: unknown): boolean;
  isBooleanObject(v: unknown): boolean;
  isBigIntObject(v: unknown): boolean;
}

/** `util.types` where the runtime has `node:util`, else the same checks written with the language's own brand tests. */
export function brandChecks(): BrandChecks {
  return nodeBuiltin<{ types: BrandChecks }>("node:util")?.types ?? portableBrandChecks();
}

/** A brand check from a method or getter that throws for any other receiver. */
function branded(call: ((this: unknown) => unknown) | undefined, except?: unknown): (v: unknown) => boolean {
  if (!call) return () => false;
  return (v) => {
    if (v === null || typeof v !== "object" || v === except) return false;
    try {
      call.call(v);
      return true;
    } catch {
      return false;
    }
  };
}

function portableBrandChecks(): BrandChecks {
  const getter = (proto: object | undefined, key: string) =>
    proto ? (Object.getOwnPropertyDescriptor(proto, key)?.get as (this: unknown) => unknown) : undefined;
  const shared = (globalThis as { SharedArrayBuffer?: { prototype: object } }).SharedArrayBuffer;
  const isArrayBuffer = branded(getter(ArrayBuffer.prototype, "byteLength"));
  const isSharedArrayBuffer = branded(getter(shared?.prototype, "byteLength"));
  const isStringObject = branded(String.prototype.valueOf as () => unknown);
  const isNumberObject = branded(Number.prototype.valueOf as () => unknown);
  const isBooleanObject = branded(Boolean.prototype.valueOf as () => unknown);
  const isBigIntObject = branded(BigInt.prototype.valueOf as () => unknown);
  const isSymbolObject = branded(Symbol.prototype.valueOf as () => unknown);
  const isError = (Error as { isError?: (v: unknown) => boolean }).isError;
  return {
    isAnyArrayBuffer: ((v: unknown) => isArrayBuffer(v) || isSharedArrayBuffer(v)) as BrandChecks["isAnyArrayBuffer"],
    isSharedArrayBuffer,
    isDataView: branded(getter(DataView.prototype, "byteLength")) as BrandChecks["isDataView"],
    isDate: branded(Date.prototype.getTime as () => unknown) as BrandChecks["isDate"],
    isMap: branded(getter(Map.prototype, "size")) as BrandChecks["isMap"],
    isSet: branded(getter(Set.prototype, "size")) as BrandChecks["isSet"],
    // `source` throws for anything but a RegExp — and answers for RegExp.prototype itself, which is not one.
    isRegExp: branded(getter(RegExp.prototype, "source"), RegExp.prototype) as BrandChecks["isRegExp"],
    isNativeError: (isError
      ? (v: unknown) => isError(v)
      : (v: unknown) => v instanceof Error) as BrandChecks["isNativeError"],
    isBoxedPrimitive: (v) =>
      isStringObject(v) || isNumberObject(v) || isBooleanObject(v) || isBigIntObject(v) || isSymbolObject(v),
    isStringObject,
    isNumberObject,
    isBooleanObject,
    isBigIntObject,
  };
}

/** The UTF-8 length of `text` (a lone surrogate counts as U+FFFD, as `TextEncoder` writes it). */
export function utf8Length(text: string): number {
  bufferClass ??= nodeBuffer() ?? null;
  if (bufferClass) return bufferClass.byteLength(text, "utf8");
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * A signal that aborts when any of `signals` does, with its reason: `AbortSignal.any` where the runtime has it, else
 * the same by hand (Vercel's edge runtime lacks it).
 */
export function anySignal(signals: AbortSignal[]): AbortSignal {
  if (typeof AbortSignal.any === "function") return AbortSignal.any(signals);
  const controller = new AbortController();
  const listeners: (() => void)[] = [];
  const done = (signal: AbortSignal) => {
    controller.abort(signal.reason);
    for (const [i, s] of signals.entries()) if (listeners[i]) s.removeEventListener("abort", listeners[i]);
  };
  for (const signal of signals) {
    if (signal.aborted) {
      done(signal);
      break;
    }
    const listener = () => done(signal);
    listeners.push(listener);
    signal.addEventListener("abort", listener, { once: true });
  }
  return controller.signal;
}
