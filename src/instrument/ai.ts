/**
 * `tracewire/ai`: tracing for the Vercel AI SDK (`ai`).
 *
 * - `ai` 7: `registerTelemetry(tracewireTelemetry())` once at startup; every `generateText`, `streamText`,
 *   `generateObject`, `streamObject`, `embed` and `embedMany` is then a tree of tracewire calls (operation → step →
 *   model call / tool call) with real JSON inputs and outputs, nested under the caller's op or span.
 * - `ai` 6: nothing to import. With `init()` (or `tracewire/otel`'s processor in your own provider), the spans it
 *   emits under `experimental_telemetry: { isEnabled: true }` become the same calls (the processor maps its `ai.*`
 *   spans; see `genai/ai-sdk-spans.ts`).
 *
 * Never loads `ai` itself: the integration implements the SDK's `Telemetry` interface structurally.
 *
 * @module tracewire/ai
 */

export { TracewireTelemetry, tracewireTelemetry } from "../genai/ai-sdk-telemetry.js";
export { VERSION } from "../version.js";
