/**
 * `tracewire/api`: typed clients for the tracing, inference and training services.
 */

export type { CallOptions, WithProject } from "./base.js";
export { TracingClient, type TracingClientOptions } from "./tracing/client.js";
export type * from "./types/calls.js";
export type * from "./types/common.js";
