/**
 * `tracewire/google`: tracing for the `@google/genai` package (3.x). `wrapGoogleGenAI(client)` traces
 * `models.generateContent`, `models.generateContentStream` and chats as GenAI `generate_content {model}` spans,
 * without changing the client's types or behaviour. Never loads the SDK itself.
 */

export { GOOGLE_PROVIDER } from "../genai/google-generate.js";
export {
  ATTR_TRACEWIRE_CANCEL_REASON,
  ATTR_TRACEWIRE_CANCELLED,
} from "../genai/openai-chat.js";
export { VERSION } from "../version.js";
export { GOOGLE_OPS, type WrapGoogleGenAIOptions, wrapGoogleGenAI } from "./google.js";
