/**
 * `tracewire/openai-agents`: the OpenAI Agents SDK's runs as tracewire calls.
 *
 * ```ts
 * import { addTraceProcessor } from "@openai/agents";
 * import { tracewireTraceProcessor } from "tracewire/openai-agents";
 * addTraceProcessor(tracewireTraceProcessor());
 * ```
 * Never loads `@openai/agents` itself: the processor reads the traces and spans the SDK hands it.
 */
export {
  type AgentsSpan,
  type AgentsTrace,
  type TraceProcessorOptions,
  TracewireTraceProcessor,
  tracewireTraceProcessor,
} from "../genai/openai-agents.js";
