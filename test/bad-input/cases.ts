/**
 * The bad-input table: for every public function and method of `tracewire`, `tracewire/otel`, `tracewire/api` and
 * `tracewire/openai`, calls with wrong types, empty strings, huge values, invalid URLs, bad page sizes and unknown
 * feedback types, each with the typed error it must raise and the parameter its message must name.
 * public-api.test.ts runs them and checks that every export is covered here (or listed as not applicable, with why).
 */

import {
  annotationFeedbackType,
  callRef,
  InferenceClient,
  objectRef,
  opRef,
  parseRef,
  runnableFeedbackType,
  TracingClient,
  TrainingClient,
  tableRef,
} from "../../src/api/index.js";
import type { Call, TracewireHandle } from "../../src/index.js";
import {
  apiErrorClass,
  ConfigError,
  callById,
  callOf,
  getCurrentCall,
  init,
  maskSecret,
  op,
  TracewireError,
  ValidationError,
  withAttributes,
  withThread,
} from "../../src/index.js";
import { wrapAnthropic } from "../../src/instrument/anthropic.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { createOtlpExporter, OtlpTraceExporter, TracewireSpanProcessor } from "../../src/otel/index.js";
import type { TestServer } from "../support/server.js";

/** What the cases run against: clients pointed at a recording loopback server, and a live traced call. */
export interface Ctx {
  server: TestServer;
  url: string;
  tracing: TracingClient;
  /** A TracingClient without a default project. */
  noProject: TracingClient;
  inference: InferenceClient;
  training: TrainingClient;
  /** A call recorded by a running `init()` session. */
  call: Call;
  handle: TracewireHandle;
}

type ErrorClass = abstract new (...args: never[]) => Error;

export interface BadInput {
  /** The public function or method, as users spell it: `TracingClient.calls.start`, `op`, `Call.react`. */
  target: string;
  /** What is wrong with the input. */
  input: string;
  /** Makes the call. May throw, return a rejected promise, or return an async iterable that throws when read. */
  run(ctx: Ctx): unknown;
  /** The typed error expected. */
  error: ErrorClass;
  /** What the message must name: the parameter (or setting, or method for a wrong request object). */
  names: string;
  /** `ValidationError.param` / `ConfigError.setting` when the error carries one. */
  param?: string;
}

export const HUGE = "h".repeat(5 * 1024 * 1024);
const BASE = { project: "acme/demo", env: {} };

/** The same wrong request object given four ways: null, a number, a string, an array. */
const NOT_OBJECTS: [string, unknown][] = [
  ["null", null],
  ["a number", 42],
  ["a string", "calls"],
  ["an array", []],
];
/** Empty, blank, wrong-typed and missing ids. */
const BAD_IDS: [string, unknown][] = [
  ["an empty id", ""],
  ["a blank id", "   "],
  ["a numeric id", 42],
  ["a null id", null],
];
/** Bad page sizes and offsets. */
const BAD_PAGING: [string, Record<string, unknown>, string][] = [
  ["a negative limit", { limit: -1 }, "limit"],
  ["a fractional limit", { limit: 2.5 }, "limit"],
  ["a string limit", { limit: "10" }, "limit"],
  ["a huge limit", { limit: 1e300 }, "limit"],
  ["a NaN limit", { limit: Number.NaN }, "limit"],
  ["a negative offset", { offset: -3 }, "offset"],
];
/** Per-call options gone wrong. */
const BAD_CALL_OPTIONS: [string, unknown, string][] = [
  ["a negative timeoutMs", { timeoutMs: -1 }, "timeoutMs"],
  ["a string timeoutMs", { timeoutMs: "5000" }, "timeoutMs"],
  ["a timeoutMs beyond what a timer can wait", { timeoutMs: 1e12 }, "timeoutMs"],
  ["a signal that is not an AbortSignal", { signal: { aborted: false } }, "signal"],
  ["headers as a string", { headers: "x-a: 1" }, "headers"],
  ["a numeric header value", { headers: { "x-a": 1 } }, "headers"],
  ["a header value with CR LF", { headers: { "x-a": "1\r\nx-injected: yes" } }, "headers"],
  ["a header name with a space", { headers: { "x a": "1" } }, "headers"],
];

const cases: BadInput[] = [];
const add = (c: BadInput) => cases.push(c);

function requestObjects(
  target: string,
  run: (ctx: Ctx, body: never) => unknown,
  names = target.split(".").slice(1).join("."),
) {
  for (const [input, value] of NOT_OBJECTS)
    add({ target, input: `request ${input}`, run: (ctx) => run(ctx, value as never), error: ValidationError, names });
}

// ---- tracewire ------------------------------------------------------------------------------------------------

/** Options of `init()` and the processor, each wrong in one setting (a base URL keeps tracing on). */
const BAD_PROCESSOR_OPTIONS: [string, Record<string, unknown>, string][] = [
  ["baseUrl not a URL", { baseUrl: "not a url" }, "baseUrl"],
  ["baseUrl with an ftp scheme", { baseUrl: "ftp://traces.example.com" }, "baseUrl"],
  ["baseUrl with credentials", { baseUrl: "http://user:secret@127.0.0.1:9" }, "baseUrl"],
  ["baseUrl with a query", { baseUrl: "http://127.0.0.1:9/?tenant=a" }, "baseUrl"],
  ["baseUrl a number", { baseUrl: 4319 }, "baseUrl"],
  ["baseUrl empty (with a key)", { baseUrl: "", apiKey: "tw-key-0123456789abcdef" }, "baseUrl"],
  ["project without an entity", { project: "demo" }, "project"],
  ["project empty", { project: "" }, "project"],
  ["project huge", { project: `a/${HUGE}x y` }, "project"],
  ["apiKey empty", { apiKey: "" }, "apiKey"],
  ["apiKey with spaces", { apiKey: "tw key" }, "apiKey"],
  ["apiKey a number", { apiKey: 1234 }, "apiKey"],
  ["maxQueueSize zero", { maxQueueSize: 0 }, "maxQueueSize"],
  ["maxQueueSize a string", { maxQueueSize: "lots" }, "maxQueueSize"],
  ["maxQueueSize huge", { maxQueueSize: 1e12 }, "maxQueueSize"],
  ["maxExportBatchSize fractional", { maxExportBatchSize: 1.5 }, "maxExportBatchSize"],
  ["scheduledDelayMillis negative", { scheduledDelayMillis: -1 }, "scheduledDelayMillis"],
  ["scheduledDelayMillis beyond a timer's range", { scheduledDelayMillis: 2 ** 31 }, "scheduledDelayMillis"],
  ["exportTimeoutMillis Infinity", { exportTimeoutMillis: Number.POSITIVE_INFINITY }, "exportTimeoutMillis"],
  ["exportTimeoutMillis huge", { exportTimeoutMillis: 1e12 }, "exportTimeoutMillis"],
  ["otlpTimeoutMillis zero", { otlpTimeoutMillis: 0 }, "otlpTimeoutMillis"],
  ["maxBatchBytes tiny", { maxBatchBytes: 10 }, "maxBatchBytes"],
  ["otlpEndpoint not a URL", { otlpEndpoint: "collector:4318" }, "otlpEndpoint"],
  ["otlpProtocol grpc", { otlpProtocol: "grpc" }, "otlpProtocol"],
  ["otlpCompression brotli", { otlpCompression: "br" }, "otlpCompression"],
  ["otlpHeaders a string", { otlpHeaders: "x-tenant=a" }, "otlpHeaders"],
  ["otlpHeaders with a numeric value", { otlpHeaders: { "x-tenant": 7 } }, "otlpHeaders"],
  ["otlpHeaders with CR LF in a value", { otlpHeaders: { "x-tenant": "a\r\nx-admin: 1" } }, "otlpHeaders"],
  ["export mode unknown", { export: "sometimes" }, "export"],
  ["route not a function", { route: "calls" }, "route"],
  ["filter not a function", { filter: true }, "filter"],
  ["logger without error()", { logger: { warn() {} } }, "logger"],
  ["logger a string", { logger: "console" }, "logger"],
  ["exitHooks not a boolean", { exitHooks: "maybe" }, "exitHooks"],
  ["exitFlushMillis zero", { exitFlushMillis: 0 }, "exitFlushMillis"],
  [
    "TRACEWIRE_EXIT_FLUSH_TIMEOUT not a number (env)",
    { env: { TRACEWIRE_EXIT_FLUSH_TIMEOUT: "5s" } },
    "exitFlushMillis",
  ],
  ["otlpAttributeValueLengthLimit fractional", { otlpAttributeValueLengthLimit: 2.5 }, "otlpAttributeValueLengthLimit"],
  [
    "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT negative (env)",
    { env: { OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "-1" } },
    "otlpAttributeValueLengthLimit",
  ],
  ["allowInsecureHttp not a boolean", { allowInsecureHttp: "sure" }, "allowInsecureHttp"],
  ["env a string", { env: "TRACEWIRE_PROJECT=a/b" }, "env"],
  ["OTEL_BSP_MAX_QUEUE_SIZE with a unit (env)", { env: { OTEL_BSP_MAX_QUEUE_SIZE: "2k" } }, "maxQueueSize"],
  [
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS smuggling CR LF (env)",
    {
      env: { OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-a=1%0D%0Ax-admin%3A%201" },
    },
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
  ],
];

for (const [input, options, names] of BAD_PROCESSOR_OPTIONS) {
  const full = { baseUrl: "http://127.0.0.1:9", ...BASE, exitHooks: false, ...options };
  add({ target: "init", input, run: () => init(full as never), error: ConfigError, names });
  add({
    target: "TracewireSpanProcessor",
    input,
    run: () => new TracewireSpanProcessor(full as never),
    error: ConfigError,
    names,
  });
  if (
    ![
      "route",
      "filter",
      "logger",
      "exitHooks",
      "exitFlushMillis",
      "export",
      "maxQueueSize",
      "maxExportBatchSize",
      "scheduledDelayMillis",
      "exportTimeoutMillis",
      "maxBatchBytes",
    ].includes(names)
  )
    add({
      target: "createOtlpExporter",
      input,
      // exitHooks is the processor's: the exporter refuses it (undefined is let through).
      run: () => createOtlpExporter({ ...full, exitHooks: undefined } as never),
      error: ConfigError,
      names,
    });
}
const INIT_ONLY: [string, Record<string, unknown>, ErrorClass, string][] = [
  ["options a string", "tracewire" as never, ValidationError, "options"],
  ["options null", null as never, ValidationError, "options"],
  ["serviceName a number", { serviceName: 42 }, ConfigError, "serviceName"],
  ["serviceName empty", { serviceName: "" }, ConfigError, "serviceName"],
  ["captureContent not a boolean", { captureContent: "maybe" }, ConfigError, "captureContent"],
  ["disabled not a boolean", { disabled: "nope" }, ConfigError, "disabled"],
  ["redact not a function", { redact: "***" }, ConfigError, "redact"],
  ["redactKeys not an array", { redactKeys: "api_key" }, ConfigError, "redactKeys"],
  ["redactKeys holding a number", { redactKeys: ["api_key", 7] }, ConfigError, "redactKeys"],
  // With tracing off (no base URL, no key): the logger that would say so is checked first.
  ["logger a string, tracing off", { baseUrl: undefined, logger: "console" }, ConfigError, "logger"],
  ["maxStringLength too small", { maxStringLength: 1 }, ConfigError, "maxStringLength"],
  ["maxPayloadBytes fractional", { maxPayloadBytes: 1024.5 }, ConfigError, "maxPayloadBytes"],
];
for (const [input, options, error, names] of INIT_ONLY) {
  const full =
    options === null || typeof options !== "object" ? options : { baseUrl: "http://127.0.0.1:9", ...BASE, ...options };
  add({ target: "init", input, run: () => init(full as never), error, names });
}
for (const [input, options] of [
  ["options a string", "x"],
  ["options null", null],
  ["options an array", []],
] as const) {
  add({
    target: "TracewireSpanProcessor",
    input,
    run: () => new TracewireSpanProcessor(options as never),
    error: ConfigError,
    names: "options",
  });
  add({
    target: "createOtlpExporter",
    input,
    run: () => createOtlpExporter(options as never),
    error: ConfigError,
    names: "options",
  });
}

/** A hand-built exporter config, valid except where a case breaks it. */
const GOOD_OTLP_CONFIG = {
  url: "http://127.0.0.1:9/otel/v1/traces",
  apiKey: undefined,
  project: "acme/demo",
  protocol: "http/protobuf",
  compression: "gzip",
  timeoutMs: 1000,
  headers: {},
};
const BAD_OTLP_CONFIGS: [string, unknown, string][] = [
  ["config missing", undefined, "config"],
  ["config a string", "http://127.0.0.1:9", "config"],
  ["url missing", { ...GOOD_OTLP_CONFIG, url: undefined }, "url"],
  ["url not a URL", { ...GOOD_OTLP_CONFIG, url: "collector" }, "url"],
  ["project malformed", { ...GOOD_OTLP_CONFIG, project: "demo" }, "project"],
  ["protocol grpc", { ...GOOD_OTLP_CONFIG, protocol: "grpc" }, "protocol"],
  ["compression brotli", { ...GOOD_OTLP_CONFIG, compression: "br" }, "compression"],
  ["timeoutMs negative", { ...GOOD_OTLP_CONFIG, timeoutMs: -1 }, "timeoutMs"],
  ["headers a string", { ...GOOD_OTLP_CONFIG, headers: "a=b" }, "headers"],
];
for (const [input, config, names] of BAD_OTLP_CONFIGS)
  add({
    target: "OtlpTraceExporter",
    input,
    run: () => new OtlpTraceExporter(config as never),
    error: ConfigError,
    names,
  });
add({
  target: "OtlpTraceExporter.export",
  input: "a result callback that is not a function",
  run: () => createOtlpExporter({ baseUrl: "http://127.0.0.1:9", ...BASE }).export([], "done" as never),
  error: ValidationError,
  names: "callback",
  param: "resultCallback",
});

/** op(fn, options): the function and each option wrong in turn. */
const fn = () => 1;
const BAD_OP: [string, unknown, unknown, string][] = [
  ["fn null", null, {}, "fn"],
  ["fn a string", "handler", {}, "fn"],
  ["fn an object", { call() {} }, {}, "fn"],
  ["options a string", fn, "name", "options"],
  ["name empty", fn, { name: "" }, "name"],
  ["name a number", fn, { name: 7 }, "name"],
  ["name huge", fn, { name: HUGE }, "name"],
  ["displayName a number", fn, { displayName: 5 }, "displayName"],
  ["displayName empty", fn, { displayName: " " }, "displayName"],
  ["displayName huge", fn, { displayName: HUGE }, "displayName"],
  ["parameterNames a string", fn, { parameterNames: "a,b" }, "parameterNames"],
  ["parameterNames with a number", fn, { parameterNames: ["a", 1] }, "parameterNames"],
  ["attributes an array", fn, { attributes: [1, 2] }, "attributes"],
  ["attributes null", fn, { attributes: null }, "attributes"],
  ["kind a string", fn, { kind: "server" }, "kind"],
  ["kind out of range", fn, { kind: 9 }, "kind"],
  ["turn not a boolean", fn, { turn: "yes" }, "turn"],
];
for (const [input, f, options, names] of BAD_OP)
  add({
    target: "op",
    input,
    run: () => op(f as never, options as never),
    error: ValidationError,
    names,
    param: names,
  });

// Bad attributes or thread ids are logged and ignored, never thrown (test/tracing/context.test.ts); a missing
// function is the one thing these helpers refuse.
add({
  target: "withAttributes",
  input: "fn not a function",
  run: () => withAttributes({}, 5 as never),
  error: ValidationError,
  names: "function",
  param: "fn",
});
add({
  target: "withThread",
  input: "fn not a function",
  run: () => withThread("t-1", null as never),
  error: ValidationError,
  names: "function",
  param: "fn",
});

// callById never throws: the handle it returns rejects every request with the error.
for (const [input, value] of [...BAD_IDS, ["a huge id", HUGE], ["an id with a slash", "ab/cd"]] as [string, unknown][])
  add({
    target: "callById",
    input,
    run: () => callById(value as never).react("👍"),
    error: ValidationError,
    names: "callId",
    param: "callId",
  });
add({
  target: "callById",
  input: "a numeric trace id",
  run: () => callById("0123456789abcdef", 7 as never).note("n"),
  error: ValidationError,
  names: "traceId",
  param: "traceId",
});

for (const [input, value] of [
  ["a number", 42],
  ["undefined", undefined],
  ["null", null],
  ["an object", { key: "k" }],
] as [string, unknown][])
  add({
    target: "maskSecret",
    input: `secret ${input}`,
    run: () => maskSecret(value as never),
    error: ValidationError,
    names: "secret",
    param: "secret",
  });
for (const [input, value] of [
  ["a string", "404"],
  ["a fraction", 404.5],
  ["NaN", Number.NaN],
] as [string, unknown][])
  add({
    target: "apiErrorClass",
    input: `status ${input}`,
    run: () => apiErrorClass(value as never),
    error: ValidationError,
    names: "status",
    param: "status",
  });

// Call: a live call's feedback, scores and renames.
const callCases: [string, string, (c: Call) => unknown, string, string?][] = [
  ["Call.react", "an empty emoji", (c) => c.react(""), "emoji", "emoji"],
  ["Call.react", "a numeric emoji", (c) => c.react(1 as never), "emoji", "emoji"],
  ["Call.note", "an empty note", (c) => c.note(""), "note", "note"],
  ["Call.note", "a note of 1025 characters", (c) => c.note("n".repeat(1025)), "note", "note"],
  ["Call.note", "a huge note", (c) => c.note(HUGE), "note", "note"],
  ["Call.note", "a note that is an object", (c) => c.note({ text: "hi" } as never), "note", "note"],
  [
    "Call.feedback",
    "an unknown wandb.* feedback type",
    (c) => c.feedback("wandb.thumbs.1", {}),
    "feedback_type",
    "feedback_type",
  ],
  [
    "Call.feedback",
    "a misspelled reaction type",
    (c) => c.feedback("wandb.reaction.2", { emoji: "x" }),
    "feedback_type",
    "feedback_type",
  ],
  ["Call.feedback", "an empty feedback type", (c) => c.feedback("", {}), "feedback type", "feedback type"],
  ["Call.feedback", "a numeric feedback type", (c) => c.feedback(3 as never, {}), "feedback type", "feedback type"],
  ["Call.feedback", "a huge feedback type", (c) => c.feedback(`custom.${HUGE}`, {}), "feedback type", "feedback type"],
  [
    "Call.feedback",
    "a payload that is a string",
    (c) => c.feedback("custom.kind", "good" as never),
    "payload",
    "payload",
  ],
  ["Call.feedback", "a payload that is an array", (c) => c.feedback("custom.kind", [1] as never), "payload", "payload"],
  ["Call.feedback", "options null", (c) => c.feedback("custom.kind", {}, null as never), "options", "options"],
  ["Call.feedback", "an empty creator", (c) => c.feedback("custom.kind", {}, { creator: "" }), "creator", "creator"],
  [
    "Call.feedback",
    "a numeric runnableRef",
    (c) => c.feedback("custom.kind", {}, { runnableRef: 5 as never }),
    "runnableRef",
    "runnableRef",
  ],
  ["Call.annotate", "an empty annotation name", (c) => c.annotate("", 1), "annotation name", "annotation name"],
  ["Call.annotate", "an annotation name with a space", (c) => c.annotate("a b", 1), "name", "name"],
  ["Call.annotate", "options a string", (c) => c.annotate("quality", 1, "x" as never), "options", "options"],
  ["Call.score", "an empty score name", (c) => c.score("", 1), "score name", "score name"],
  ["Call.score", "a score name with a slash", (c) => c.score("a/b", 1), "name", "name"],
  ["Call.score", "options null", (c) => c.score("accuracy", 1, null as never), "options", "options"],
  ["Call.setDisplayName", "an empty name", (c) => c.setDisplayName(""), "display name", "display name"],
  [
    "Call.setDisplayName",
    "a name of 1025 characters",
    (c) => c.setDisplayName("d".repeat(1025)),
    "display name",
    "display name",
  ],
  ["Call.setDisplayName", "a numeric name", (c) => c.setDisplayName(9 as never), "display name", "display name"],
];
for (const [target, input, run, names, param] of callCases)
  add({ target, input, run: (ctx) => run(ctx.call), error: ValidationError, names, ...(param ? { param } : {}) });

// ---- tracewire/otel: the processor's own methods ------------------------------------------------------------------

add({
  target: "TracewireSpanProcessor.enqueueRequest",
  input: "a numeric path",
  run: (ctx) => ctx.handle.processor!.enqueueRequest(7 as never, {}),
  error: ValidationError,
  names: "path",
  param: "path",
});
add({
  target: "TracewireSpanProcessor.enqueueRequest",
  input: "a path without a slash",
  run: (ctx) => ctx.handle.processor!.enqueueRequest("feedback/create", {}),
  error: ValidationError,
  names: "path",
  param: "path",
});
add({
  target: "TracewireSpanProcessor.enqueueRequest",
  input: "a body that is a string",
  run: (ctx) => ctx.handle.processor!.enqueueRequest("/feedback/create", "{}" as never),
  error: ValidationError,
  names: "body",
  param: "body",
});

// ---- tracewire/api: TracingClient --------------------------------------------------------------------------------

const BAD_CLIENT_OPTIONS: [string, unknown, string][] = [
  ["options a string", "http://127.0.0.1:9", "options"],
  ["options null", null, "options"],
  ["baseUrl missing", { env: {} }, "baseUrl"],
  ["baseUrl not a URL", { baseUrl: "localhost:8080", env: {} }, "baseUrl"],
  ["baseUrl a javascript: URL", { baseUrl: "javascript:alert(1)", env: {} }, "baseUrl"],
  ["baseUrl with a fragment", { baseUrl: "https://h.example.com/#x", env: {} }, "baseUrl"],
  ["baseUrl an object", { baseUrl: new URL("https://h.example.com"), env: {} }, "baseUrl"],
  [
    "baseUrl plain http to a remote host with a key",
    { baseUrl: "http://h.example.com", apiKey: "tw-key-0123456789abcdef", env: {} },
    "baseUrl",
  ],
  ["apiKey empty", { baseUrl: "http://127.0.0.1:9", apiKey: "", env: {} }, "apiKey"],
  ["timeoutMs zero", { baseUrl: "http://127.0.0.1:9", timeoutMs: 0, env: {} }, "timeoutMs"],
  ["timeoutMs huge", { baseUrl: "http://127.0.0.1:9", timeoutMs: 1e12, env: {} }, "timeoutMs"],
  [
    "connectTimeoutMs a string",
    { baseUrl: "http://127.0.0.1:9", connectTimeoutMs: "10s", env: {} },
    "connectTimeoutMs",
  ],
  ["bodyTimeoutMs NaN", { baseUrl: "http://127.0.0.1:9", bodyTimeoutMs: Number.NaN, env: {} }, "bodyTimeoutMs"],
  ["maxConnections huge", { baseUrl: "http://127.0.0.1:9", maxConnections: 1e9, env: {} }, "maxConnections"],
  ["gzip not a boolean", { baseUrl: "http://127.0.0.1:9", gzip: "maybe", env: {} }, "gzip"],
  ["retry a number", { baseUrl: "http://127.0.0.1:9", retry: 3, env: {} }, "retry"],
  [
    "retry.maxAttempts zero",
    { baseUrl: "http://127.0.0.1:9", retry: { maxAttempts: 0 }, env: {} },
    "retry.maxAttempts",
  ],
  [
    "retry.maxAttempts huge",
    { baseUrl: "http://127.0.0.1:9", retry: { maxAttempts: 1e9 }, env: {} },
    "retry.maxAttempts",
  ],
  [
    "retry.baseDelayMs beyond a timer's range",
    { baseUrl: "http://127.0.0.1:9", retry: { baseDelayMs: 2 ** 32 }, env: {} },
    "retry.baseDelayMs",
  ],
  [
    "retry.retryableStatuses a string",
    { baseUrl: "http://127.0.0.1:9", retry: { retryableStatuses: "503" }, env: {} },
    "retry.retryableStatuses",
  ],
  [
    "retry.retryableStatuses with a non-status",
    { baseUrl: "http://127.0.0.1:9", retry: { retryableStatuses: [503, 42] }, env: {} },
    "retry.retryableStatuses",
  ],
  [
    "retry.nonIdempotent unknown",
    { baseUrl: "http://127.0.0.1:9", retry: { nonIdempotent: "always" }, env: {} },
    "retry.nonIdempotent",
  ],
  ["headers a string", { baseUrl: "http://127.0.0.1:9", headers: "x-a: 1", env: {} }, "headers"],
  [
    "headers with a CR LF value",
    { baseUrl: "http://127.0.0.1:9", headers: { "x-a": "1\r\nx-b: 2" }, env: {} },
    "headers",
  ],
];
const clients: [string, (options: unknown) => unknown][] = [
  ["TracingClient", (o) => new TracingClient(o as never)],
  ["InferenceClient", (o) => new InferenceClient(o as never)],
  ["TrainingClient", (o) => new TrainingClient(o as never)],
];
for (const [target, make] of clients) {
  for (const [input, options, names] of BAD_CLIENT_OPTIONS)
    add({ target, input, run: () => make(options), error: ConfigError, names });
}
add({
  target: "TracingClient",
  input: "project without an entity",
  run: () => new TracingClient({ baseUrl: "http://127.0.0.1:9", project: "demo", env: {} }),
  error: ConfigError,
  names: "project",
});
add({
  target: "InferenceClient",
  input: "project without a team",
  run: () => new InferenceClient({ baseUrl: "http://127.0.0.1:9", project: "demo", env: {} }),
  error: ConfigError,
  names: "project",
});
add({
  target: "InferenceClient",
  input: "trace a string",
  run: () => new InferenceClient({ baseUrl: "http://127.0.0.1:9", trace: "on" as never, env: {} }),
  error: ConfigError,
  names: "trace",
});
add({
  target: "TrainingClient",
  input: "trace with a non-boolean flag",
  run: () => new TrainingClient({ baseUrl: "http://127.0.0.1:9", trace: { captureTokenIds: "yes" as never }, env: {} }),
  error: ConfigError,
  names: "captureTokenIds",
});
for (const [input, a, b, names] of [
  ["entity empty", "", "demo", "entity"],
  ["entity with a slash", "acme/x", "demo", "entity"],
  ["project a number", "acme", 5, "project"],
] as [string, unknown, unknown, string][])
  add({
    target: "TracingClient.project",
    input,
    run: (ctx) => ctx.tracing.project(a as never, b as never),
    error: ValidationError,
    names,
    param: names,
  });

/** Methods of the tracing families whose first argument is the request body (with `project_id`). */
type BodyMethod = [target: string, call: (ctx: Ctx, body: never) => unknown, paging?: boolean];
const t = (ctx: Ctx) => ctx.tracing;
const BODY_METHODS: BodyMethod[] = [
  ["TracingClient.calls.read", (c, b) => t(c).calls.read(b)],
  ["TracingClient.calls.update", (c, b) => t(c).calls.update(b)],
  ["TracingClient.calls.delete", (c, b) => t(c).calls.delete(b)],
  ["TracingClient.calls.streamQuery", (c, b) => t(c).calls.streamQuery(b), true],
  ["TracingClient.calls.queryStats", (c, b) => t(c).calls.queryStats(b), true],
  ["TracingClient.calls.stats", (c, b) => t(c).calls.stats(b)],
  ["TracingClient.calls.usage", (c, b) => t(c).calls.usage(b), true],
  ["TracingClient.calls.traceUsage", (c, b) => t(c).calls.traceUsage(b), true],
  ["TracingClient.calls.score", (c, b) => t(c).calls.score(b)],
  ["TracingClient.costs.create", (c, b) => t(c).costs.create(b)],
  ["TracingClient.costs.purge", (c, b) => t(c).costs.purge(b)],
  ["TracingClient.costs.query", (c, b) => t(c).costs.query(b), true],
  ["TracingClient.feedback.create", (c, b) => t(c).feedback.create(b)],
  ["TracingClient.feedback.payloadSchema", (c, b) => t(c).feedback.payloadSchema(b)],
  ["TracingClient.feedback.purge", (c, b) => t(c).feedback.purge(b)],
  ["TracingClient.feedback.query", (c, b) => t(c).feedback.query(b), true],
  ["TracingClient.feedback.replace", (c, b) => t(c).feedback.replace(b)],
  ["TracingClient.feedback.stats", (c, b) => t(c).feedback.stats(b)],
  ["TracingClient.files.create", (c, b) => t(c).files.create(b)],
  ["TracingClient.files.content", (c, b) => t(c).files.content(b)],
  ["TracingClient.files.queryStats", (c, b) => t(c).files.queryStats(b)],
  ["TracingClient.objects.aliases", (c, b) => t(c).objects.aliases(b)],
  ["TracingClient.objects.tags", (c, b) => t(c).objects.tags(b)],
  ["TracingClient.objects.read", (c, b) => t(c).objects.read(b)],
  ["TracingClient.objects.delete", (c, b) => t(c).objects.delete(b)],
  ["TracingClient.objects.query", (c, b) => t(c).objects.query(b), true],
  ["TracingClient.tables.createFromDigests", (c, b) => t(c).tables.createFromDigests(b)],
  ["TracingClient.tables.update", (c, b) => t(c).tables.update(b)],
  ["TracingClient.tables.query", (c, b) => t(c).tables.query(b), true],
  ["TracingClient.tables.queryStream", (c, b) => t(c).tables.queryStream(b), true],
  ["TracingClient.tables.queryStats", (c, b) => t(c).tables.queryStats(b)],
  ["TracingClient.tables.queryStatsBatch", (c, b) => t(c).tables.queryStatsBatch(b)],
  ["TracingClient.threads.streamQuery", (c, b) => t(c).threads.streamQuery(b), true],
  ["TracingClient.images.create", (c, b) => t(c).images.create(b)],
  ["TracingClient.evaluations.evaluateModel", (c, b) => t(c).evaluations.evaluateModel(b)],
  ["TracingClient.evaluations.status", (c, b) => t(c).evaluations.status(b)],
  ["TracingClient.annotationQueues.create", (c, b) => t(c).annotationQueues.create(b)],
  ["TracingClient.annotationQueues.query", (c, b) => t(c).annotationQueues.query(b), true],
  ["TracingClient.annotationQueues.stats", (c, b) => t(c).annotationQueues.stats(b)],
  ["TracingClient.annotationQueues.read", (c, b) => t(c).annotationQueues.read("q-1", b)],
  ["TracingClient.annotationQueues.update", (c, b) => t(c).annotationQueues.update("q-1", b)],
  ["TracingClient.annotationQueues.delete", (c, b) => t(c).annotationQueues.delete("q-1", b)],
  ["TracingClient.annotationQueues.addCalls", (c, b) => t(c).annotationQueues.addCalls("q-1", b)],
  ["TracingClient.annotationQueues.queryItems", (c, b) => t(c).annotationQueues.queryItems("q-1", b), true],
  [
    "TracingClient.annotationQueues.updateItemProgress",
    (c, b) => t(c).annotationQueues.updateItemProgress("q-1", "i-1", b),
  ],
  ["TracingClient.objects.setAliases", (c, b) => t(c).objects.setAliases("o-1", b)],
  ["TracingClient.objects.removeAliases", (c, b) => t(c).objects.removeAliases("o-1", b)],
  ["TracingClient.objects.addTags", (c, b) => t(c).objects.addTags("o-1", "d1", b)],
  ["TracingClient.objects.removeTags", (c, b) => t(c).objects.removeTags("o-1", "d1", b)],
];
for (const [target, call, paging] of BODY_METHODS) {
  const method = target.replace("TracingClient.", "");
  requestObjects(target, call, method);
  add({
    target,
    input: "project_id without an entity",
    run: (ctx) => call(ctx, { project_id: "demo" } as never),
    error: ValidationError,
    names: "project_id",
    param: "project_id",
  });
  add({
    target,
    input: "project_id huge",
    run: (ctx) => call(ctx, { project_id: HUGE } as never),
    error: ValidationError,
    names: "project_id",
    param: "project_id",
  });
  add({
    target,
    input: "no project_id and no default project",
    run: (ctx) => call({ ...ctx, tracing: ctx.noProject }, {} as never),
    error: ValidationError,
    names: "project_id",
    param: "project_id",
  });
  if (paging)
    for (const [input, body, names] of BAD_PAGING)
      add({ target, input, run: (ctx) => call(ctx, body as never), error: ValidationError, names, param: names });
}

/** Methods with an id in the path: the id wrong in each way. */
const ID_METHODS: [string, string, (ctx: Ctx, id: never) => unknown][] = [
  ["TracingClient.annotationQueues.read", "queue_id", (c, id) => t(c).annotationQueues.read(id)],
  ["TracingClient.annotationQueues.update", "queue_id", (c, id) => t(c).annotationQueues.update(id, {} as never)],
  ["TracingClient.annotationQueues.delete", "queue_id", (c, id) => t(c).annotationQueues.delete(id)],
  [
    "TracingClient.annotationQueues.addCalls",
    "queue_id",
    (c, id) => t(c).annotationQueues.addCalls(id, { call_ids: [] } as never),
  ],
  [
    "TracingClient.annotationQueues.queryItems",
    "queue_id",
    (c, id) => t(c).annotationQueues.queryItems(id, {} as never),
  ],
  [
    "TracingClient.annotationQueues.updateItemProgress",
    "item_id",
    (c, id) => t(c).annotationQueues.updateItemProgress("q-1", id, {} as never),
  ],
  ["TracingClient.objects.setAliases", "object_id", (c, id) => t(c).objects.setAliases(id, {} as never)],
  ["TracingClient.objects.removeAliases", "object_id", (c, id) => t(c).objects.removeAliases(id, {} as never)],
  ["TracingClient.objects.addTags", "digest", (c, id) => t(c).objects.addTags("o-1", id, {} as never)],
  ["TracingClient.objects.removeTags", "object_id", (c, id) => t(c).objects.removeTags(id, "d1", {} as never)],
  ["TracingClient.inferenceCatalog.analysisModels", "provider", (c, id) => t(c).inferenceCatalog.analysisModels(id)],
  ["TracingClient.inferenceCatalog.hardware", "vendor", (c, id) => t(c).inferenceCatalog.hardware(id)],
  ["TracingClient.inferenceCatalog.routerModels", "provider", (c, id) => t(c).inferenceCatalog.routerModels(id)],
];
for (const [target, param, call] of ID_METHODS)
  for (const [input, value] of BAD_IDS)
    add({
      target,
      input: `${param}: ${input}`,
      run: (ctx) => call(ctx, value as never),
      error: ValidationError,
      names: param,
      param,
    });
for (const target of ["analysisModels", "hardware", "routerModels"] as const)
  add({
    target: `TracingClient.inferenceCatalog.${target}`,
    input: "a query that is a string",
    run: (ctx) => t(ctx).inferenceCatalog[target]("openai", "limit=5" as never),
    error: ValidationError,
    names: "query",
  });

// Methods whose body nests the record (`{start}`, `{end}`, `{obj}`, `{table}`, `{batch}`, `{refs}`).
requestObjects("TracingClient.calls.start", (c, b) => t(c).calls.start(b), "calls.start");
add({
  target: "TracingClient.calls.start",
  input: "no start record",
  run: (c) => t(c).calls.start({} as never),
  error: ValidationError,
  names: "start",
});
add({
  target: "TracingClient.calls.start",
  input: "a start with project_id malformed",
  run: (c) => t(c).calls.start({ start: { project_id: "x" } } as never),
  error: ValidationError,
  names: "project_id",
  param: "project_id",
});
requestObjects("TracingClient.calls.end", (c, b) => t(c).calls.end(b), "calls.end");
add({
  target: "TracingClient.calls.end",
  input: "an end record that is a string",
  run: (c) => t(c).calls.end({ end: "done" } as never),
  error: ValidationError,
  names: "end",
});
requestObjects("TracingClient.calls.upsertBatch", (c, b) => t(c).calls.upsertBatch(b), "calls.upsertBatch");
add({
  target: "TracingClient.calls.upsertBatch",
  input: "batch not an array",
  run: (c) => t(c).calls.upsertBatch({ batch: {} } as never),
  error: ValidationError,
  names: "batch",
  param: "batch",
});
// The v2 call writes of a project scope.
const v2Calls = (c: Ctx) => c.tracing.project("acme", "demo").calls;
requestObjects("TracingClient.project().calls.complete", (c, b) => v2Calls(c).complete(b), "project.calls.complete");
add({
  target: "TracingClient.project().calls.complete",
  input: "batch not an array",
  run: (c) => v2Calls(c).complete({ batch: {} } as never),
  error: ValidationError,
  names: "batch",
  param: "batch",
});
add({
  target: "TracingClient.project().calls.complete",
  input: "a record of another project",
  run: (c) => v2Calls(c).complete({ batch: [{ project_id: "other/p" }] } as never),
  error: ValidationError,
  names: "project_id",
  param: "project_id",
});
requestObjects("TracingClient.project().calls.start", (c, b) => v2Calls(c).start(b), "project.calls.start");
add({
  target: "TracingClient.project().calls.start",
  input: "no start record",
  run: (c) => v2Calls(c).start({} as never),
  error: ValidationError,
  names: "start",
});
requestObjects("TracingClient.project().calls.end", (c, b) => v2Calls(c).end(b), "project.calls.end");
add({
  target: "TracingClient.project().calls.end",
  input: "an end record that is a string",
  run: (c) => v2Calls(c).end({ end: "done" } as never),
  error: ValidationError,
  names: "end",
});
requestObjects("TracingClient.objects.create", (c, b) => t(c).objects.create(b), "objects.create");
add({
  target: "TracingClient.objects.create",
  input: "no obj",
  run: (c) => t(c).objects.create({} as never),
  error: ValidationError,
  names: "obj",
});
requestObjects("TracingClient.tables.create", (c, b) => t(c).tables.create(b), "tables.create");
add({
  target: "TracingClient.tables.create",
  input: "table null",
  run: (c) => t(c).tables.create({ table: null } as never),
  error: ValidationError,
  names: "table",
});
requestObjects("TracingClient.feedback.createBatch", (c, b) => t(c).feedback.createBatch(b), "feedback.createBatch");
add({
  target: "TracingClient.feedback.createBatch",
  input: "batch a string",
  run: (c) => t(c).feedback.createBatch({ batch: "x" } as never),
  error: ValidationError,
  names: "batch",
  param: "batch",
});
add({
  target: "TracingClient.feedback.createBatch",
  input: "an item that is null",
  run: (c) => t(c).feedback.createBatch({ batch: [null] } as never),
  error: ValidationError,
  names: "item 0",
});
requestObjects("TracingClient.refs.readBatch", (c, b) => t(c).refs.readBatch(b), "refs.readBatch");
add({
  target: "TracingClient.refs.readBatch",
  input: "refs not an array",
  run: (c) => t(c).refs.readBatch({ refs: "weave:///a/b/call/1" } as never),
  error: ValidationError,
  names: "refs",
  param: "refs",
});
requestObjects("TracingClient.otel.export", (c, b) => t(c).otel.export(b), "otel.export");
add({
  target: "TracingClient.otel.export",
  input: "a body that is a string",
  run: (c) => t(c).otel.export({ body: "spans" } as never),
  error: ValidationError,
  names: "body",
  param: "body",
});
add({
  target: "TracingClient.otel.export",
  input: "an unknown content type",
  run: (c) => t(c).otel.export({ body: new Uint8Array(1), contentType: "text/plain" } as never),
  error: ValidationError,
  names: "contentType",
  param: "contentType",
});
for (const [input, value] of NOT_OBJECTS)
  add({
    target: "TracingClient.service.projectsInfo",
    input: `request ${input}`,
    run: (c) => t(c).service.projectsInfo(value as never),
    error: ValidationError,
    names: "project_ids",
    param: "project_ids",
  });
add({
  target: "TracingClient.files.create",
  input: "file a number",
  run: (c) => t(c).files.create({ filename: "a.txt", file: 5 } as never),
  error: ValidationError,
  names: "file",
  param: "file",
});
add({
  target: "TracingClient.files.create",
  input: "filename empty",
  run: (c) => t(c).files.create({ filename: "", file: "x" } as never),
  error: ValidationError,
  names: "filename",
  param: "filename",
});
add({
  target: "TracingClient.files.content",
  input: "digest missing",
  run: (c) => t(c).files.content({} as never),
  error: ValidationError,
  names: "digest",
  param: "digest",
});

// Per-call options, on one method of each kind (they all pass through the same check).
const OPTION_METHODS: [string, (ctx: Ctx, options: never) => unknown][] = [
  ["TracingClient.service.health", (c, o) => t(c).service.health(o)],
  ["TracingClient.service.version", (c, o) => t(c).service.version(o)],
  ["TracingClient.service.serverInfo", (c, o) => t(c).service.serverInfo(o)],
  ["TracingClient.service.geolocate", (c, o) => t(c).service.geolocate(o)],
  ["TracingClient.calls.streamQuery", (c, o) => t(c).calls.streamQuery({}, o)],
  [
    "TracingClient.feedback.create",
    (c, o) => t(c).feedback.create({ weave_ref: "weave:///a/b/call/1", feedback_type: "x", payload: {} } as never, o),
  ],
  ["InferenceClient.models.list", (c, o) => c.inference.models.list(o)],
  ["TrainingClient.health", (c, o) => c.training.health(o)],
  ["TrainingClient.systemCheck", (c, o) => c.training.systemCheck(o)],
];
for (const [target, call] of OPTION_METHODS) {
  for (const [input, options, param] of BAD_CALL_OPTIONS)
    add({
      target,
      input: `call options: ${input}`,
      run: (ctx) => call(ctx, options as never),
      error: ValidationError,
      names: param,
      param,
    });
  add({
    target,
    input: "call options a string",
    run: (ctx) => call(ctx, "fast" as never),
    error: ValidationError,
    names: "options",
    param: "options",
  });
}

// Project-scoped v2 resources.
const p = (ctx: Ctx) => ctx.tracing.project("acme", "demo");
const V2: [string, (ctx: Ctx) => { list?: (q?: never) => unknown }][] = [
  ["evaluations", (c) => p(c).evaluations],
  ["ops", (c) => p(c).ops],
  ["datasets", (c) => p(c).datasets],
  ["scorers", (c) => p(c).scorers],
  ["models", (c) => p(c).models],
  ["scores", (c) => p(c).scores],
  ["evaluationRuns", (c) => p(c).evaluationRuns],
  ["predictions", (c) => p(c).predictions],
];
type V2Any = {
  list(q?: unknown): unknown;
  create(b: unknown): unknown;
  delete(a: unknown, b?: unknown): unknown;
  read?(id: unknown): unknown;
  readVersion?(id: unknown, d: unknown): unknown;
  finish?(id: unknown, b?: unknown): unknown;
};
for (const [name, get] of V2) {
  const target = (m: string) => `TracingClient.project().${name}.${m}`;
  const r = (ctx: Ctx) => get(ctx) as unknown as V2Any;
  for (const [input, query, names] of BAD_PAGING)
    add({
      target: target("list"),
      input,
      run: (ctx) => r(ctx).list(query),
      error: ValidationError,
      names,
      param: names,
    });
  add({
    target: target("list"),
    input: "a query that is a string",
    run: (ctx) => r(ctx).list("limit=5"),
    error: ValidationError,
    names: "list",
  });
  for (const [input, value] of NOT_OBJECTS)
    add({
      target: target("create"),
      input: `body ${input}`,
      run: (ctx) => r(ctx).create(value),
      error: ValidationError,
      names: "create",
    });
  const objectLike = ["evaluations", "ops", "datasets", "scorers", "models"].includes(name);
  if (objectLike) {
    for (const [input, value] of BAD_IDS)
      add({
        target: target("delete"),
        input: `object_id: ${input}`,
        run: (ctx) => r(ctx).delete(value),
        error: ValidationError,
        names: "object_id",
        param: "object_id",
      });
    add({
      target: target("delete"),
      input: "digests a string",
      run: (ctx) => r(ctx).delete("o-1", { digests: "d1" }),
      error: ValidationError,
      names: "digests",
      param: "digests",
    });
    for (const [input, value] of BAD_IDS)
      add({
        target: target("readVersion"),
        input: `digest: ${input}`,
        run: (ctx) => r(ctx).readVersion!("o-1", value),
        error: ValidationError,
        names: "digest",
        param: "digest",
      });
  } else {
    const ids = { scores: "score_ids", evaluationRuns: "evaluation_run_ids", predictions: "prediction_ids" }[name]!;
    for (const [input, value] of [
      ["an empty list", []],
      ["a string", "id-1"],
      ["a list with an empty id", [""]],
    ] as [string, unknown][])
      add({
        target: target("delete"),
        input: `${ids}: ${input}`,
        run: (ctx) => r(ctx).delete(value),
        error: ValidationError,
        names: ids,
        param: ids,
      });
    const id = { scores: "score_id", evaluationRuns: "evaluation_run_id", predictions: "prediction_id" }[name]!;
    for (const [input, value] of BAD_IDS)
      add({
        target: target("read"),
        input: `${id}: ${input}`,
        run: (ctx) => r(ctx).read!(value),
        error: ValidationError,
        names: id,
        param: id,
      });
    if (name !== "scores") {
      for (const [input, value] of BAD_IDS)
        add({
          target: target("finish"),
          input: `${id}: ${input}`,
          run: (ctx) => r(ctx).finish!(value),
          error: ValidationError,
          names: id,
          param: id,
        });
    }
  }
}
add({
  target: "TracingClient.project().evaluationRuns.finish",
  input: "a summary body that is a string",
  run: (ctx) => p(ctx).evaluationRuns.finish("r-1", "done" as never),
  error: ValidationError,
  names: "finish",
});
for (const [input, value] of NOT_OBJECTS)
  add({
    target: "TracingClient.project().evalResults.query",
    input: `body ${input}`,
    run: (ctx) => p(ctx).evalResults.query(value as never),
    error: ValidationError,
    names: "query",
  });
for (const [input, body, names] of BAD_PAGING)
  add({
    target: "TracingClient.project().evalResults.query",
    input,
    run: (ctx) => p(ctx).evalResults.query(body as never),
    error: ValidationError,
    names,
    param: names,
  });

// ---- tracewire/api: refs helpers ------------------------------------------------------------------------------

const REF_CASES: [string, string, () => unknown, string][] = [
  ["callRef", "project without an entity", () => callRef("demo", "c1"), "project"],
  ["callRef", "project a number", () => callRef(7 as never, "c1"), "project"],
  ["callRef", "an empty call id", () => callRef("a/b", ""), "callId"],
  ["callRef", "a call id with a slash", () => callRef("a/b", "c/1"), "callId"],
  ["objectRef", "a name with a colon", () => objectRef("a/b", "n:x"), "name"],
  ["objectRef", "an empty digest", () => objectRef("a/b", "n", ""), "digest"],
  ["opRef", "a numeric name", () => opRef("a/b", 5 as never), "name"],
  ["opRef", "a digest with a space", () => opRef("a/b", "scorer", "v 1"), "digest"],
  ["tableRef", "an empty digest", () => tableRef("a/b", ""), "digest"],
  ["tableRef", "a project that is huge and has no slash", () => tableRef(HUGE, "d"), "project"],
  ["parseRef", "a number", () => parseRef(5 as never), "ref"],
  ["parseRef", "an http URL", () => parseRef("https://example.com/call/1"), "ref"],
  ["parseRef", "an unknown kind", () => parseRef("weave:///a/b/dataset/x"), "ref"],
  ["parseRef", "an op ref without a digest", () => parseRef("weave:///a/b/op/scorer"), "ref"],
  ["parseRef", "broken percent-encoding", () => parseRef("weave:///a/b/table/d/id/%E0%A4%A"), "ref"],
  ["annotationFeedbackType", "an empty name", () => annotationFeedbackType(""), "name"],
  ["annotationFeedbackType", "a name with a space", () => annotationFeedbackType("good answer"), "name"],
  ["runnableFeedbackType", "a numeric scorer", () => runnableFeedbackType(1 as never), "scorer"],
  ["runnableFeedbackType", "a scorer with a slash", () => runnableFeedbackType("a/b"), "scorer"],
];
for (const [target, input, run, names] of REF_CASES)
  add({ target, input, run, error: ValidationError, names, param: names });

// ---- tracewire/api: InferenceClient and TrainingClient --------------------------------------------------------

const CHAT_BAD: [string, unknown, string][] = [
  ["request null", null, "request object"],
  ["request a string", "hello", "request object"],
  ["model missing", { messages: [] }, "model"],
  ["model empty", { model: "", messages: [] }, "model"],
  ["messages a string", { model: "m", messages: "hello" }, "messages"],
];
for (const [input, params, names] of CHAT_BAD) {
  add({
    target: "InferenceClient.chat.completions.create",
    input,
    run: (c) => c.inference.chat.completions.create(params as never),
    error: ValidationError,
    names,
  });
  add({
    target: "TrainingClient.chat.completions.create",
    input,
    run: (c) => c.training.chat.completions.create(params as never),
    error: ValidationError,
    names,
  });
}
add({
  target: "TrainingClient.chat.completions.create",
  input: "continue_final_message without add_generation_prompt: false",
  run: (c) =>
    c.training.chat.completions.create({
      model: "m",
      messages: [{ role: "assistant", content: "a" }],
      continue_final_message: true,
    } as never),
  error: ValidationError,
  names: "add_generation_prompt",
});

const tr = (c: Ctx) => c.training;
const TRAINING: [string, string, (c: Ctx) => unknown, string][] = [
  [
    "TrainingClient.models.checkpoints",
    "params null",
    (c) => tr(c).models.checkpoints("m", null as never),
    "models.checkpoints",
  ],
  ["TrainingClient.models.create", "params null", (c) => tr(c).models.create(null as never), "models.create"],
  [
    "TrainingClient.models.create",
    "an empty name",
    (c) => tr(c).models.create({ project: "p", name: "", base_model: "b" }),
    "name",
  ],
  [
    "TrainingClient.models.create",
    "a numeric base_model",
    (c) => tr(c).models.create({ project: "p", name: "n", base_model: 1 as never }),
    "base_model",
  ],
  ["TrainingClient.models.delete", "an empty model id", (c) => tr(c).models.delete(""), "modelId"],
  ["TrainingClient.models.checkpoints", "an empty model id", (c) => tr(c).models.checkpoints(""), "modelId"],
  ["TrainingClient.models.checkpoints", "page size 0", (c) => tr(c).models.checkpoints("m", { limit: 0 }), "limit"],
  ["TrainingClient.models.checkpoints", "page size 101", (c) => tr(c).models.checkpoints("m", { limit: 101 }), "limit"],
  [
    "TrainingClient.models.checkpoints",
    "a string page size",
    (c) => tr(c).models.checkpoints("m", { limit: "20" as never }),
    "limit",
  ],
  [
    "TrainingClient.models.checkpoints",
    "an empty cursor",
    (c) => tr(c).models.checkpoints("m", { after: "" }),
    "after",
  ],
  [
    "TrainingClient.models.checkpoints",
    "an unknown order",
    (c) => tr(c).models.checkpoints("m", { order: "newest" as never }),
    "order",
  ],
  [
    "TrainingClient.models.deleteCheckpoints",
    "steps a string",
    (c) => tr(c).models.deleteCheckpoints("m", { steps: "1,2" as never }),
    "steps",
  ],
  [
    "TrainingClient.models.deleteCheckpoints",
    "fractional steps",
    (c) => tr(c).models.deleteCheckpoints("m", { steps: [1.5] }),
    "steps",
  ],
  [
    "TrainingClient.models.deleteCheckpoints",
    "an empty model id",
    (c) => tr(c).models.deleteCheckpoints(" ", { steps: [1] }),
    "modelId",
  ],
  [
    "TrainingClient.models.log",
    "an empty split",
    (c) => tr(c).models.log("m", { split: "", trajectory_groups: [] }),
    "split",
  ],
  [
    "TrainingClient.models.log",
    "trajectory_groups an object",
    (c) => tr(c).models.log("m", { split: "val", trajectory_groups: {} as never }),
    "trajectory_groups",
  ],
  ["TrainingClient.jobs.create", "params a string", (c) => tr(c).jobs.create("job" as never), "jobs.create"],
  [
    "TrainingClient.jobs.create",
    "trajectory_groups missing",
    (c) => tr(c).jobs.create({ model_id: "m" } as never),
    "trajectory_groups",
  ],
  [
    "TrainingClient.jobs.createSft",
    "an empty training_data_url",
    (c) => tr(c).jobs.createSft({ model_id: "m", training_data_url: "" }),
    "training_data_url",
  ],
  ["TrainingClient.jobs.retrieve", "a numeric job id", (c) => tr(c).jobs.retrieve(5 as never), "jobId"],
  ["TrainingClient.jobs.events", "an empty job id", (c) => tr(c).jobs.events(""), "jobId"],
  ["TrainingClient.jobs.events", "page size 0", (c) => tr(c).jobs.events("j", { limit: 0 }), "limit"],
  [
    "TrainingClient.jobs.events",
    "a negative poll interval",
    (c) => tr(c).jobs.events("j", { follow: true, pollIntervalMs: -1 }),
    "pollIntervalMs",
  ],
  ["TrainingClient.jobs.events", "params null", (c) => tr(c).jobs.events("j", null as never), "jobs.events"],
];
for (const [target, input, run, names] of TRAINING) add({ target, input, run, error: ValidationError, names });

// ---- tracewire/openai -----------------------------------------------------------------------------------------

for (const [input, client] of [
  ["null", null],
  ["a string", "openai"],
  ["an object without chat.completions.create", { chat: { completions: {} } }],
] as [string, unknown][])
  add({
    target: "wrapOpenAI",
    input: `client ${input}`,
    run: () => wrapOpenAI(client as never),
    error: ValidationError,
    names: "wrapOpenAI",
  });
add({
  target: "wrapOpenAI",
  input: "options a string",
  run: () => wrapOpenAI({ chat: { completions: { create() {} } } }, "trace" as never),
  error: ConfigError,
  names: "wrapOpenAI options",
});

// ---- tracewire/anthropic --------------------------------------------------------------------------------------

for (const [input, client] of [
  ["null", null],
  ["a string", "anthropic"],
  ["an object without messages.create", { messages: {} }],
] as [string, unknown][])
  add({
    target: "wrapAnthropic",
    input: `client ${input}`,
    run: () => wrapAnthropic(client as never),
    error: ValidationError,
    names: "wrapAnthropic",
  });
add({
  target: "wrapAnthropic",
  input: "options.providerName empty",
  run: () => wrapAnthropic({ messages: { create() {} } }, { providerName: " " }),
  error: ConfigError,
  names: "wrapAnthropic options.providerName",
});
add({
  target: "wrapAnthropic",
  input: "options.contentAttributes a string",
  run: () => wrapAnthropic({ messages: { create() {} } }, { contentAttributes: "yes" as never }),
  error: ConfigError,
  names: "wrapAnthropic options.contentAttributes",
});

export const BAD_INPUTS: readonly BadInput[] = cases;

const NO_ARGUMENTS = "takes no arguments";
const BUILT_BY_CLIENTS =
  "constructed by the clients from their transport (@internal); their methods are covered through the clients";

/**
 * Public functions and methods without bad-input cases, each with the reason. The completeness checks in
 * public-api.test.ts accept exactly these names.
 */
export const NO_BAD_INPUT: Record<string, string> = {
  getCurrentCall: NO_ARGUMENTS,
  callOf: "a lookup: anything that is not a traced call's result answers undefined (checked in public-api.test.ts)",
  "Call.ref": "a getter",
  "TracingClient.close": NO_ARGUMENTS,
  "InferenceClient.close": NO_ARGUMENTS,
  "TrainingClient.close": NO_ARGUMENTS,
  "TracewireSpanProcessor.onStart":
    "called by the OTel SDK; never throws into the app: garbage is counted in stats().internalErrors (checked in public-api.test.ts)",
  "TracewireSpanProcessor.onEnd": "as onStart",
  "TracewireSpanProcessor.forceFlush":
    "its one optional argument is a deadline in ms; anything but a positive number means the default (exportTimeoutMillis), as the OTel SDK calls it with none",
  "TracewireSpanProcessor.offered": "a getter",
  "TracewireSpanProcessor.exitFlushMillis": "a getter",
  "TracewireSpanProcessor.shutdown": NO_ARGUMENTS,
  "TracewireSpanProcessor.stats": NO_ARGUMENTS,
  "TracewireSpanProcessor.idle": "a getter",
  tracewireTelemetry: NO_ARGUMENTS,
  TracewireTelemetry:
    "the integration tracewireTelemetry() returns; the AI SDK calls its event methods, which never throw into it: garbage events are ignored (checked in test/ai/ai-events.test.ts)",
  ...Object.fromEntries(
    [
      "Call",
      "TracewireSpanProcessor",
      "TracingClient",
      "TracingClient.calls",
      "InferenceClient",
      "InferenceClient.models",
      "TrainingClient",
      "TrainingClient.models",
      "TrainingClient.jobs",
    ].map((owner) => [
      `${owner}.toJSON`,
      "the short summary JSON.stringify and the serializer record (secrets.ts); takes no arguments",
    ]),
  ),
  ChatStream: "the stream a chat completion returns; its constructor is @internal (built by the clients)",
  InferenceChatCompletions: BUILT_BY_CLIENTS,
  InferenceModels: BUILT_BY_CLIENTS,
  TrainingChatCompletions: BUILT_BY_CLIENTS,
  TrainingModels: BUILT_BY_CLIENTS,
  TrainingJobs: BUILT_BY_CLIENTS,
  Call: "obtained from getCurrentCall(), callOf(), op().invoke() or callById() (its constructor is @internal); its methods are covered",
  isTrainingJobEvent:
    "a type guard: garbage events answer false (tested in test/api/training.test.ts); a non-string type is a ValidationError",
};

/** Silences the unused-import lint for names only referenced in NO_BAD_INPUT's checks. */
export const REFERENCED = { getCurrentCall, callOf, TracewireError };
