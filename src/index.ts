/**
 * tracewire: OpenTelemetry-native tracing for LLM applications.
 *
 * This entry holds what every user needs: the error family and configuration helpers. Tracing (`init`, `op`,
 * `Call`) lands here with the tracing core; the service clients live in `tracewire/api`.
 */

export { type ClientOptions, ENV, type Env, maskSecret } from "./config.js";
export * from "./errors.js";
export { VERSION } from "./version.js";
