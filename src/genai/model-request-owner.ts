/**
 * One model request, one call. An agent framework that tracewire traces (the OpenAI Agents SDK, LangChain) records
 * its model calls itself, as GenAI chat calls with the messages, the answer and usage keyed by model. When the app
 * also wrapped the client the framework sends the request through (`wrapOpenAI`), that client would record the
 * same request a second time, and a parent's usage rollup would count its tokens twice.
 *
 * The rule: the framework's model call records the request. While a framework model call runs, its context carries
 * a marker ({@link withFrameworkModelCall}; the framework integrations put it on the context their context bridge
 * makes active inside a model call, run-context.ts). A wrapped client that starts a chat call checks
 * {@link frameworkModelCallOf} first and, inside such a call, sends the request untraced (`ChatCall.start`). The
 * marker is read from the active context, so it holds however the framework learned of the model call: before the
 * client's request (LangChain's handler, the Agents SDK's processor) or only when the client asks for the context (a
 * processor told late; the bridge then reads the framework's own storage).
 *
 * Only the request itself is deduplicated: a wrapped client that a tool calls, or that runs outside any model call,
 * records its calls as usual.
 */
import { type Context, context, createContextKey } from "@opentelemetry/api";

/** Who records the model requests made in this context. */
export interface FrameworkModelCall {
  /** The framework, e.g. `openai-agents`, `langchain`. */
  readonly framework: string;
  /** Requests a wrapped client left to this call (counted, for tests and diagnostics). */
  deferred: number;
}

const MODEL_CALL_KEY = createContextKey("tracewire.framework.model_call");

/** `ctx` as the context of a framework's model call: wrapped clients inside it leave their requests to it. */
export function withFrameworkModelCall(ctx: Context, call: FrameworkModelCall): Context {
  return ctx.setValue(MODEL_CALL_KEY, call);
}

/** The framework model call the active context (or `ctx`) belongs to, if any. */
export function frameworkModelCallOf(ctx: Context = context.active()): FrameworkModelCall | undefined {
  return ctx.getValue(MODEL_CALL_KEY) as FrameworkModelCall | undefined;
}
