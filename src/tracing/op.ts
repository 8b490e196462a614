/**
 * `op(fn)`: traces every invocation of `fn` as one call (one span). Sync and async functions, generators, async
 * generators and functions that return streams are all observed without changing what the caller gets back: the
 * return value is the very same object, errors are rethrown unchanged, and tracing failures are swallowed (counted
 * and logged) rather than surfaced.
 *
 * One behaviour to know: observing a returned native promise attaches a handler to it, so a rejected op promise that
 * nobody handles no longer triggers Node's `unhandledRejection` (the error is still recorded on the call). Other
 * thenables (an SDK's APIPromise, a query builder) are never `then`ed by op(): see observe-thenable.ts.
 */
import {
  type Context,
  context,
  createContextKey,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type { JsonObject } from "../api/types/common.js";
import { unknownOption } from "../config.js";
import { ValidationError } from "../errors.js";
import { describeError, exceptionFields } from "../otel/diagnostics.js";
import type { PayloadSettings } from "../otel/payload-options.js";
import { CALL_START_KEY, type CallStartData, setCallEndData, spanRoute } from "../otel/span-data.js";
import { globalState, reportInternalError } from "../otel/state.js";
import { TRACER_NAME, VERSION } from "../version.js";
import { portableEndAttributes } from "../wire/span-to-call.js";
import { Call, MAX_NAME_LENGTH } from "./call.js";
import { currentAttributes, currentThread, serializeAttributes, withTurn } from "./context.js";
import { observeResult } from "./observe.js";
import { payloadSettings, preparePayload } from "./payload.js";
import { describe } from "./serialize-values.js";

/** Options of {@link op}. */
export interface OpOptions {
  /** The call's op name. Default: the function's name, else `"anonymous"`. */
  name?: string;
  /** A display name for each call, fixed or computed from the arguments. */
  displayName?: string | ((...args: never[]) => string);
  /** Names for the positional arguments in `inputs` (default `arg0`, `arg1`, …). */
  parameterNames?: string[];
  /** Extra call attributes for every call of this op. */
  attributes?: Record<string, unknown>;
  /** OpenTelemetry span kind. Default INTERNAL. */
  kind?: SpanKind;
  /** Inside `withThread`: whether this op, when outermost, becomes a turn. Default true. */
  turn?: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: a wrapper must accept any function signature.
type AnyFunction = (...args: any[]) => any;

/** Every option {@link op} reads; `satisfies` keeps the list in step with {@link OpOptions}. */
const OP_OPTIONS = {
  name: true,
  displayName: true,
  parameterNames: true,
  attributes: true,
  kind: true,
  turn: true,
} as const satisfies Record<keyof OpOptions, true>;

/** What the vendor's SDKs call an option (or do through one), lower-cased without `-`/`_`, by its answer here. */
const OP_OTHER_NAMES: Record<string, string> = {
  calldisplayname: "displayName",
  opname: "name",
  postprocessinputs: "init({ redact }): payloads are redacted for every call there",
  postprocessoutput: "init({ redact }): payloads are redacted for every call there",
  paramnames: "parameterNames",
  spankind: "kind",
};

/** A traced function: the original signature, plus `opName` and `invoke()`. */
export type Op<F extends AnyFunction> = F & {
  /** The op name calls are recorded under. */
  readonly opName: string;
  /** Calls the function and also returns the handle of the call it recorded (`undefined` when tracing is off). */
  invoke(...args: Parameters<F>): [ReturnType<F>, Call | undefined];
};

const OP = Symbol.for("tracewire.op");
/** The function an op wraps (for evaluations, which record the op's run as their own model or scorer call). */
const OP_FN = Symbol.for("tracewire.op.fn");
const CALL = Symbol.for("tracewire.call");

/**
 * The `Call` of a span, created once (while the span is live) and cached on the span. A span that does not record
 * (sampled out, no SDK) never becomes a call, so it gets no handle: feedback for it would target an unknown call.
 */
export function callOfSpan(span: Span): Call | undefined {
  const processor = globalState().active;
  if (!processor) return undefined;
  const holder = span as { [CALL]?: Call };
  if (!holder[CALL]) {
    if (!span.isRecording()) return undefined;
    const { spanId, traceId } = span.spanContext();
    // A call sent by OTLP reaches the service when its span is exported; requests about it wait for that.
    holder[CALL] = new Call(spanId, traceId, processor, spanRoute(span) === "otlp" ? { otlpSpan: span } : {});
  }
  return holder[CALL];
}

/**
 * The arguments by name. A function or symbol argument is kept as its description (`"[Function onChunk]"`), as the
 * serializer writes one in an array: as a property of the inputs object it would be dropped, and a callback argument
 * would be missing from the call's inputs.
 */
function namedInputs(args: unknown[], names: string[] | undefined): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    inputs[names?.[i] ?? `arg${i}`] = typeof arg === "function" || typeof arg === "symbol" ? describe(arg) : arg;
  }
  return inputs;
}

/** Shows a bad option value in a message without echoing a huge one whole. */
function shown(value: unknown): string {
  if (typeof value === "string")
    return value.length > 60 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}

function validate(fn: unknown, options: OpOptions): void {
  if (typeof fn !== "function")
    throw new ValidationError(`op() expects a function (fn) to trace, got ${fn === null ? "null" : typeof fn}.`, "fn");
  if (options === null || typeof options !== "object")
    throw new ValidationError("op() options must be an object.", "options");
  // Unchecked in JavaScript: `postprocessInputs` (the vendor's redaction hook) would otherwise be ignored silently.
  const unknown = unknownOption(options, OP_OPTIONS, OP_OTHER_NAMES);
  if (unknown) {
    const { key, hint } = unknown;
    throw new ValidationError(
      `op() has no option ${key}${hint ? ` (did you mean ${hint}?)` : ""}; its options are ${Object.keys(OP_OPTIONS).join(", ")}.`,
      key,
    );
  }
  const { name, displayName, kind, turn } = options;
  if (name !== undefined && (typeof name !== "string" || name.trim() === "" || name.length > MAX_NAME_LENGTH)) {
    throw new ValidationError(
      `op() option name must be a non-empty string of at most ${MAX_NAME_LENGTH} characters, got ${shown(name)}.`,
      "name",
    );
  }
  if (
    displayName !== undefined &&
    typeof displayName !== "function" &&
    (typeof displayName !== "string" || displayName.trim() === "" || displayName.length > MAX_NAME_LENGTH)
  ) {
    throw new ValidationError(
      `op() option displayName must be a non-empty string of at most ${MAX_NAME_LENGTH} characters or a function returning one, got ${shown(displayName)}.`,
      "displayName",
    );
  }
  if (kind !== undefined && !(Number.isInteger(kind) && kind >= SpanKind.INTERNAL && kind <= SpanKind.CONSUMER)) {
    throw new ValidationError(
      `op() option kind must be an OpenTelemetry SpanKind (0-4, e.g. SpanKind.CLIENT), got ${shown(kind)}.`,
      "kind",
    );
  }
  if (turn !== undefined && typeof turn !== "boolean") {
    throw new ValidationError(`op() option turn must be true or false, got ${shown(turn)}.`, "turn");
  }
  if (
    options.parameterNames !== undefined &&
    (!Array.isArray(options.parameterNames) || options.parameterNames.some((n) => typeof n !== "string"))
  ) {
    throw new ValidationError("op() option parameterNames must be an array of strings.", "parameterNames");
  }
  const { attributes } = options;
  if (attributes !== undefined && (attributes === null || typeof attributes !== "object" || Array.isArray(attributes)))
    throw new ValidationError("op() option attributes must be an object.", "attributes");
}

/**
 * Wraps `fn` so that each invocation is recorded as a call: inputs (named from `parameterNames` or `arg0…n`; `this`
 * is not recorded), output, exception, timing, and its place in the trace. Wrapping an op again returns it as is.
 */
export function op<F extends AnyFunction>(fn: F, options: OpOptions = {}): Op<F> {
  validate(fn, options);
  if ((fn as { [OP]?: true })[OP]) return fn as Op<F>;
  const opName = options.name ?? (fn.name || "anonymous");
  // Stored as JSON, like withAttributes: a value JSON cannot encode (BigInt) must not reach the exporter. Made under
  // the settings of the processor in force (its redactKeys, its limits), once per processor: an op is usually made
  // at a module's top level, before init() runs.
  let ownAttributes: { settings: PayloadSettings; json: JsonObject } | undefined;
  const attributesNow = (): JsonObject | undefined => {
    if (options.attributes === undefined) return undefined;
    const settings = payloadSettings();
    if (ownAttributes?.settings !== settings)
      ownAttributes = { settings, json: serializeAttributes(options.attributes) };
    return ownAttributes.json;
  };

  function start(args: unknown[]): { span: Span; body: Context } {
    const state = globalState();
    const parent = context.active();
    const thread = currentThread();
    const inputs = preparePayload(namedInputs(args, options.parameterNames), "inputs", opName);
    const data: CallStartData = {
      opName,
      inputs:
        inputs !== null && typeof inputs === "object" && !Array.isArray(inputs)
          ? inputs
          : inputs === undefined
            ? {}
            : { value: inputs },
      attributes: { ...currentAttributes(), ...attributesNow() },
    };
    const displayName = computeDisplayName(options.displayName, args, opName);
    if (displayName) data.displayName = displayName;
    if (thread) {
      data.threadId = thread.threadId;
      if (thread.turnId !== undefined) data.turnId = thread.turnId;
      else if (options.turn !== false) data.turnId = "self";
    }
    const tracer = state.tracer ?? trace.getTracer(TRACER_NAME, VERSION);
    const span = tracer.startSpan(
      opName,
      { kind: options.kind ?? SpanKind.INTERNAL },
      parent.setValue(CALL_START_KEY, data),
    );
    let body = trace.setSpan(parent, span);
    if (thread) {
      const turn = data.turnId === "self" ? span.spanContext().spanId : data.turnId;
      if (turn) body = withTurn(body, thread, turn);
    }
    return { span, body };
  }

  function run(self: unknown, args: unknown[], onCall?: (call: Call | undefined) => void): ReturnType<F> {
    const state = globalState();
    if (!state.active) return Reflect.apply(fn, self, args);
    if (!contextChecked) checkContextManager();
    let started: { span: Span; body: Context };
    try {
      started = start(args);
    } catch (err) {
      reportInternalError(
        "op-start",
        `Could not start a call for ${opName} (running it untraced): ${describeError(err)}`,
      );
      return Reflect.apply(fn, self, args);
    }
    const { span, body } = started;
    onCall?.(callOfSpan(span));
    let result: ReturnType<F>;
    try {
      result = context.with(body, () => Reflect.apply(fn, self, args));
    } catch (err) {
      endWithError(span, err);
      throw err;
    }
    try {
      // The returned object itself (a promise, a generator, a stream) also leads back to its call.
      if (result !== null && (typeof result === "object" || typeof result === "function")) {
        const call = callOfSpan(span);
        if (call) state.results.set(result, call);
      }
      observeResult(result, { span, context: body, opName, end: endWithOutput, fail: endWithError });
    } catch (err) {
      // E.g. a Proxy whose traps throw when asked for `then`: end the call now rather than leave it open forever.
      // The caller's own value refused to be read: logged, but not tracewire's failure, so not counted.
      state.active?.diagnostics.error("op-observe", `Could not observe the result of ${opName}: ${describeError(err)}`);
      endWithOutput(span, result, opName);
    }
    return result;
  }

  function traced(this: unknown, ...args: unknown[]): ReturnType<F> {
    return run(this, args);
  }
  Object.defineProperty(traced, "name", { value: fn.name, configurable: true });
  // Frameworks read the arity (Express tells error handlers by `length === 4`).
  Object.defineProperty(traced, "length", { value: fn.length, configurable: true });
  Object.defineProperty(traced, OP, { value: true });
  Object.defineProperty(traced, OP_FN, { value: fn });
  Object.defineProperty(traced, "opName", { value: opName, enumerable: true });
  Object.defineProperty(traced, "invoke", {
    value: function invoke(this: unknown, ...args: unknown[]): [ReturnType<F>, Call | undefined] {
      let call: Call | undefined;
      const result = run(this, args, (c) => {
        call = c;
      });
      return [result, call];
    },
  });
  return traced as unknown as Op<F>;
}

const PROBE_KEY = createContextKey("tracewire.context-probe");
let contextChecked = false;

/**
 * Once per process, at the first traced call: whether a context manager is registered at all. Without one (an app's
 * own provider set up without it: OTel JS 2.x providers register none) nothing nests and every op is a trace of its
 * own, so that is said once, with the fix. `init()` registers one where the app has none.
 */
function checkContextManager(): void {
  contextChecked = true;
  let works: unknown = true;
  try {
    works = context.with(ROOT_CONTEXT.setValue(PROBE_KEY, true), () => context.active().getValue(PROBE_KEY));
  } catch {} // a context manager that throws is not ours to judge here; the call itself will say what fails
  if (works === true || globalState().warned.has("no-context-manager")) return;
  globalState().warned.add("no-context-manager");
  globalState().active?.diagnostics.warn(
    "no-context-manager",
    "No OpenTelemetry context manager is registered, so calls cannot nest: every op becomes a trace of its own. Register one next to your tracer provider: context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()) from @opentelemetry/context-async-hooks (NodeSDK and init() do this for you).",
  );
}

/** The display name, fixed or computed; a computing function that throws costs the name, not the call. */
function computeDisplayName(option: OpOptions["displayName"], args: unknown[], opName: string): string | undefined {
  if (typeof option !== "function") return option;
  try {
    const name = option(...(args as never[]));
    if (!name) return undefined;
    const text = String(name);
    // Computed per call: too long a name is cut (visibly), never thrown into the caller.
    return text.length > MAX_NAME_LENGTH ? `${text.slice(0, MAX_NAME_LENGTH - 1)}…` : text;
  } catch (err) {
    globalState().active?.diagnostics.warn("display-name", `displayName of ${opName} threw: ${describeError(err)}`);
    return undefined;
  }
}

/** Ends a call with its output (serialised and redacted once). */
function endWithOutput(span: Span, output: unknown, opName: string): void {
  try {
    const payload = preparePayload(output, "output", opName);
    setCallEndData(span, payload === undefined ? {} : { output: payload });
    if (payload !== undefined && spanRoute(span) === "otlp") span.setAttributes(portableEndAttributes(payload, span));
    if (output !== null && (typeof output === "object" || typeof output === "function")) {
      const call = callOfSpan(span);
      if (call) globalState().results.set(output, call);
    }
  } finally {
    span.end();
  }
}

/** Ends a call as failed: status ERROR, the exception recorded, the error itself left untouched. Never throws. */
function endWithError(span: Span, err: unknown): void {
  try {
    const fields = exceptionFields(err);
    span.recordException(fields);
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: fields.name === undefined ? fields.message : `${fields.name}: ${fields.message}`,
    });
    setCallEndData(span, {});
  } catch (internal) {
    // The error itself refused to be read (a hostile Proxy): logged, not counted as tracewire's failure.
    globalState().active?.diagnostics.error("op-error", `Could not record an error: ${describeError(internal)}`);
  } finally {
    span.end();
  }
}

/**
 * The function `fn` wraps and its op name when `fn` is an op (of any bundled copy of tracewire), else undefined.
 * Evaluations call it inside their own model or scorer call, so an op used as a task is not recorded twice.
 */
export function unwrapOp(fn: unknown): { fn: AnyFunction; opName: string } | undefined {
  if (typeof fn !== "function") return undefined;
  const inner = (fn as { [OP_FN]?: AnyFunction })[OP_FN];
  return inner ? { fn: inner, opName: (fn as { opName?: string }).opName ?? inner.name } : undefined;
}

/** The call that produced `result`, if `result` is an object returned by a traced call. */
export function callOf(result: unknown): Call | undefined {
  if (result === null || (typeof result !== "object" && typeof result !== "function")) return undefined;
  return globalState().results.get(result) as Call | undefined;
}

/** The call whose body is running now (any recording span, tracewire's or another instrumentation's). */
export function getCurrentCall(): Call | undefined {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return undefined;
  return callOfSpan(span);
}
