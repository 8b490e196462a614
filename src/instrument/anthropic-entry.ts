/**
 * `tracewire/anthropic`: tracing for the `@anthropic-ai/sdk` package (0.x and 1.x). `wrapAnthropic(client)` traces
 * the Messages API — `messages.create` (streamed or not), `messages.stream()` and `messages.parse()` — as GenAI
 * `chat {model}` spans, without changing the client's types or behaviour. Never loads the SDK itself.
 *
 * @module tracewire/anthropic
 */

export {
  ANTHROPIC_PROVIDER,
  ATTR_ANTHROPIC_REQUEST_SERVICE_TIER,
  ATTR_ANTHROPIC_RESPONSE_SERVICE_TIER,
} from "../genai/anthropic-messages.js";
export {
  ATTR_TRACEWIRE_CANCEL_REASON,
  ATTR_TRACEWIRE_CANCELLED,
  ATTR_TRACEWIRE_RESPONSE_RAW,
} from "../genai/openai-chat.js";
export { VERSION } from "../version.js";
export { type WrapAnthropicOptions, wrapAnthropic } from "./anthropic.js";
