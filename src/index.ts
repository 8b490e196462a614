/**
 * tracewire: OpenTelemetry-native tracing for LLM applications.
 *
 * ```ts
 * import { init, op } from "tracewire";
 * const tracing = init();                 // TRACEWIRE_BASE_URL, TRACEWIRE_API_KEY, TRACEWIRE_PROJECT
 * const answer = op(async (question: string) => …);
 * ```
 * The service clients live in `tracewire/api`; the span processor and OTLP exporter in `tracewire/otel`.
 *
 * @module tracewire
 */

export { type ClientOptions, ENV, type Env, type EnvOption, maskSecret } from "./config.js";
export * from "./errors.js";
export type { TracewireStats } from "./otel/export-queue.js";
export { DEFAULT_REDACT_KEYS, REDACTED } from "./secrets.js";
export { Call, callById, type FeedbackOptions } from "./tracing/call.js";
export { withAttributes, withThread } from "./tracing/context.js";
export { type InitOptions, init, type TracewireHandle } from "./tracing/init.js";
export { callOf, getCurrentCall, type Op, type OpOptions, op } from "./tracing/op.js";
export { REDACTION_FAILED, type RedactHook } from "./tracing/payload.js";
export type { JsonValue, SerializeOptions } from "./tracing/serialize.js";
export { VERSION } from "./version.js";
