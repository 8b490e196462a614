/**
 * What the LangChain / LangGraph tests share (Node 20: `@langchain/core` and `@langchain/langgraph`): a minimal real
 * `BaseChatModel` subclass that calls the loopback OpenAI stand-in over HTTP through an `openai` client (the test
 * passes a plain or a `wrapOpenAI`-wrapped one), non-streamed (`_generate`) and streamed (`_streamResponseChunks`),
 * with usage as `usage_metadata`; the two tools the stand-in asks for; and a LangGraph agent graph (model node →
 * tools node → model node) built with the prebuilt `ToolNode`.
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import OpenAI from "openai";
import { afterAll, beforeAll } from "vitest";
import { z } from "zod";
import { OpenAIServer } from "../support/openai-server.js";

export const WEATHER = { city: "Paris", celsius: 21 };
export const TIME = "12:00";

type OpenAIMessage = OpenAI.ChatCompletionMessageParam;

/** A LangChain message as the OpenAI chat API takes it. */
function toOpenAI(message: BaseMessage): OpenAIMessage {
  const type = message.getType();
  const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
  if (type === "human") return { role: "user", content };
  if (type === "system") return { role: "system", content };
  if (type === "tool")
    return { role: "tool", content, tool_call_id: (message as unknown as { tool_call_id: string }).tool_call_id };
  const calls = (message as AIMessage).tool_calls ?? [];
  return calls.length
    ? {
        role: "assistant",
        content: content || null,
        tool_calls: calls.map((c) => ({
          id: c.id ?? "",
          type: "function" as const,
          function: { name: c.name, arguments: JSON.stringify(c.args) },
        })),
      }
    : { role: "assistant", content };
}

function usageMetadata(usage: OpenAI.CompletionUsage | null | undefined): AIMessage["usage_metadata"] {
  if (!usage) return undefined;
  return {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
    input_token_details: { cache_read: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_token_details: { reasoning: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
  };
}

interface StandInFields extends BaseChatModelParams {
  client: OpenAI;
  model: string;
  tools?: OpenAI.ChatCompletionTool[];
}

/** A chat model over an `openai` client (any OpenAI-compatible server): the smallest real BaseChatModel. */
export class StandInChatModel extends BaseChatModel {
  readonly client: OpenAI;
  readonly model: string;
  readonly tools: OpenAI.ChatCompletionTool[] | undefined;

  constructor(fields: StandInFields) {
    super(fields);
    this.client = fields.client;
    this.model = fields.model;
    this.tools = fields.tools;
  }

  _llmType(): string {
    return "stand-in";
  }

  override getLsParams(options: this["ParsedCallOptions"]) {
    return {
      ...super.getLsParams(options),
      ls_provider: "openai",
      ls_model_name: this.model,
      ls_model_type: "chat" as const,
    };
  }

  override invocationParams(): Record<string, unknown> {
    return { model: this.model, ...(this.tools ? { tools: this.tools } : {}) };
  }

  override bindTools(tools: Parameters<NonNullable<BaseChatModel["bindTools"]>>[0]): StandInChatModel {
    return new StandInChatModel({
      client: this.client,
      model: this.model,
      tools: tools.map((t) => convertToOpenAITool(t) as OpenAI.ChatCompletionTool),
    });
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    const completion = await this.client.chat.completions.create(
      { model: this.model, messages: messages.map(toOpenAI), ...(this.tools ? { tools: this.tools } : {}) },
      { signal: options.signal },
    );
    const choice = completion.choices[0]!;
    const message = new AIMessage({
      content: choice.message.content ?? "",
      id: completion.id,
      tool_calls: (choice.message.tool_calls ?? []).flatMap((c) =>
        c.type === "function"
          ? [{ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments), type: "tool_call" as const }]
          : [],
      ),
      usage_metadata: usageMetadata(completion.usage),
      response_metadata: { model_name: completion.model, finish_reason: choice.finish_reason },
    });
    return {
      generations: [
        { text: choice.message.content ?? "", message, generationInfo: { finish_reason: choice.finish_reason } },
      ],
    };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const stream = await this.client.chat.completions.create(
      { model: this.model, messages: messages.map(toOpenAI), stream: true, stream_options: { include_usage: true } },
      { signal: options.signal },
    );
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta?.content ?? "";
      const finish = chunk.choices[0]?.finish_reason ?? undefined;
      const usage = usageMetadata(chunk.usage);
      if (!delta && !usage && !finish) continue;
      const message = new AIMessageChunk({
        content: delta,
        ...(usage ? { usage_metadata: usage } : {}),
        response_metadata: { model_name: chunk.model, ...(finish ? { finish_reason: finish } : {}) },
      });
      yield new ChatGenerationChunk({
        text: delta,
        message,
        ...(finish ? { generationInfo: { finish_reason: finish } } : {}),
      });
      if (delta) await runManager?.handleLLMNewToken(delta);
    }
  }
}

/** `get_weather` (calls `lookup`) and `get_time`: the tools the stand-in asks for. */
export function weatherTools(lookup: (city: string) => Promise<unknown> = async () => WEATHER) {
  return [
    tool(async ({ city }) => JSON.stringify(await lookup(city)), {
      name: "get_weather",
      description: "The weather in a city",
      schema: z.object({ city: z.string() }),
    }),
    tool(async () => TIME, {
      name: "get_time",
      description: "The time in a zone",
      schema: z.object({ tz: z.string() }),
    }),
  ];
}

/** The LangGraph agent: `agent` (the model with the tools bound) → `tools` (when it asked for some) → `agent`. */
export function agentGraph(model: StandInChatModel, tools = weatherTools()) {
  const bound = model.bindTools(tools);
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({ messages: [await bound.invoke(state.messages)] }))
    .addNode("tools", new ToolNode(tools))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent")
    .compile();
}

export { childrenOf, named, one, type Recorded, recorded, summaryOf } from "../support/call-tree.js";

/**
 * A loopback OpenAI stand-in for the enclosing `describe` (started before its tests, closed after), and a factory of
 * {@link StandInChatModel}s answering from it under the stand-in model `name` (`m-slow`, `m-hang`, …).
 */
export function setupStandInModels(): (name: string) => StandInChatModel {
  let server: OpenAIServer;
  beforeAll(async () => {
    server = await OpenAIServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  return (name) =>
    new StandInChatModel({
      client: new OpenAI({ apiKey: "sk-test", baseURL: server.baseURL, maxRetries: 0 }),
      model: name,
    });
}
