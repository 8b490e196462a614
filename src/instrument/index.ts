/**
 * `tracewire/openai`: instrumentation for the `openai` package. `wrapOpenAI` arrives with the chat-completion
 * instrumentation; until then this entry exports only its version marker so the subpath resolves.
 */
export { VERSION } from "../version.js";
