/**
 * `tracewire/openai`: tracing for the `openai` package (v5, v6 and v7). `wrapOpenAI(client)` traces chat
 * completions — `create` (streamed or not), `parse` and the `stream()` helper —, the Responses API and embeddings as
 * GenAI spans, without changing the client's types or behaviour.
 *
 * @module tracewire/openai
 */

export {
  ATTR_OPENAI_REQUEST_SERVICE_TIER,
  ATTR_OPENAI_RESPONSE_SERVICE_TIER,
  ATTR_OPENAI_RESPONSE_SYSTEM_FINGERPRINT,
  ATTR_TRACEWIRE_CANCEL_REASON,
  ATTR_TRACEWIRE_CANCELLED,
  ATTR_TRACEWIRE_REQUEST_ID,
  ATTR_TRACEWIRE_REQUEST_PRIORITY,
  ATTR_TRACEWIRE_RESPONSE_RAW,
  GEN_AI_PROVIDER,
} from "../genai/openai-chat.js";
export type { ChatTraceOptions } from "../genai/options.js";
export { VERSION } from "../version.js";
export { type WrapOpenAIOptions, wrapOpenAI } from "./openai.js";
