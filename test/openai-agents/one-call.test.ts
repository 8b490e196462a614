/**
 * One model request, one call: a run whose client the app also wrapped with `wrapOpenAI` records each model request
 * once, as the SDK's model call (the wrapped client leaves requests made inside it to it), with its usage once —
 * whether tracewire's processor hears of the model call before the request (first processor) or after it (behind a
 * processor that takes its time, so the request is already under way when tracewire is told). A wrapped client a
 * tool calls is not a model call of the run: its calls are recorded, under the tool's call. The chat-completions
 * model (`generation` spans) records the same way.
 */
import { describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { tracewireTraceProcessor } from "../../src/instrument/openai-agents.js";
import { RESPONSE_TEXT, RESPONSE_USAGE } from "../support/openai-responses-server.js";
import { MODEL_SUFFIX, TEXT, USAGE } from "../support/openai-server.js";
import { HAS_AGENTS, named, one, recorded, setupAgents, summaryOf } from "./support.js";

const t = setupAgents();
const MODEL = "gpt-4o-mini";
const RESPONSE_MODEL = `${MODEL}${MODEL_SUFFIX}`;

/** A processor that answers each event only after the event loop turned: tracewire's, behind it, hears late. */
const slowProcessor = {
  onTraceStart: () => new Promise<void>((resolve) => setImmediate(resolve)),
  onTraceEnd: async () => {},
  onSpanStart: () => new Promise<void>((resolve) => setImmediate(resolve)),
  onSpanEnd: async () => {},
  shutdown: async () => {},
  forceFlush: async () => {},
};

/** Input and output tokens of every call that recorded usage, summed. */
function tokens(calls: Awaited<ReturnType<typeof recorded>>): { input: number; output: number; calls: number } {
  const out = { input: 0, output: 0, calls: 0 };
  for (const call of calls) {
    const usage = summaryOf(call).usage as
      | Record<string, { prompt_tokens: number; completion_tokens: number }>
      | undefined;
    if (!usage) continue;
    out.calls++;
    for (const entry of Object.values(usage)) {
      out.input += entry.prompt_tokens;
      out.output += entry.completion_tokens;
    }
  }
  return out;
}

describe.skipIf(!HAS_AGENTS)("OpenAI Agents SDK: a wrapped client's request is one call", () => {
  for (const order of ["first", "behind a slow processor"] as const) {
    for (const stream of [false, true]) {
      it(`Responses model, ${stream ? "streamed" : "not streamed"}, tracewire's processor ${order}`, async () => {
        const ours = tracewireTraceProcessor();
        t.agents.setTraceProcessors(order === "first" ? [ours] : [slowProcessor, ours]);
        const client = wrapOpenAI(t.client());
        const agent = new t.agents.Agent({ name: "Weather", model: MODEL, tools: t.tools() });
        const runner = t.runner(client);
        if (stream) {
          const result = await runner.run(agent, "Weather in Lyon?", { stream: true });
          for await (const _event of result) {
            // consumed
          }
          await result.completed;
          expect(result.finalOutput).toBe(RESPONSE_TEXT);
        } else {
          expect((await runner.run(agent, "Weather in Lyon?")).finalOutput).toBe(RESPONSE_TEXT);
        }
        const calls = await recorded(t.session);
        expect(t.server.bodiesOf("responses")).toHaveLength(2);
        expect(named(calls, "openai.responses.create"), "the wrapped client recorded nothing").toEqual([]);
        const models = named(calls, "openai_agents.response");
        expect(models).toHaveLength(2);
        for (const model of models) expect(Object.keys(summaryOf(model).usage as object)).toEqual([RESPONSE_MODEL]);
        expect(tokens(calls)).toEqual({
          input: 2 * RESPONSE_USAGE.input_tokens,
          output: 2 * RESPONSE_USAGE.output_tokens,
          calls: 2,
        });
      });
    }
  }

  it("a wrapped client a tool calls records its call, under the tool's call", async () => {
    t.use(tracewireTraceProcessor());
    const client = wrapOpenAI(t.client());
    const summarize = async (city: string) => {
      const completion = await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: `Summarize the weather in ${city}` }],
      });
      return completion.choices[0]?.message.content;
    };
    const agent = new t.agents.Agent({ name: "Weather", model: MODEL, tools: t.tools(summarize) });
    await t.runner(client).run(agent, "Weather in Lyon?");
    const calls = await recorded(t.session);
    const chat = one(calls, "openai.chat.completions.create");
    const weather = named(calls, "openai_agents.tool").find((c) => c.start.display_name === "get_weather");
    expect(chat.start.parent_id).toBe(weather?.start.id);
    expect(weather?.end.output).toBe(TEXT);
    expect(named(calls, "openai_agents.response")).toHaveLength(2);
    expect(tokens(calls).calls).toBe(3);
  });

  it("the chat-completions model: one generation call per request, the completion as output", async () => {
    t.use(tracewireTraceProcessor());
    const client = wrapOpenAI(t.client());
    const agent = new t.agents.Agent({ name: "Weather", instructions: "Be brief.", model: MODEL, tools: t.tools() });
    const run = op(async function chatRun() {
      return (await t.runner(client, {}, true).run(agent, "Weather in Lyon?")).finalOutput;
    });
    expect(await run()).toBe(TEXT);
    const calls = await recorded(t.session);
    expect(named(calls, "openai.chat.completions.create")).toEqual([]);
    const generations = named(calls, "openai_agents.generation");
    expect(generations).toHaveLength(2);
    const [first] = generations;
    expect(first!.start.display_name).toBe(MODEL);
    expect(first!.start.attributes).toMatchObject({ kind: "llm", operation: "chat", model: MODEL });
    expect((first!.start.inputs as { messages: unknown[] }).messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather in Lyon?" },
    ]);
    expect((first!.end.output as { choices: { finish_reason: string }[] }).choices[0]?.finish_reason).toBe(
      "tool_calls",
    );
    expect(summaryOf(first!).usage).toEqual({
      [RESPONSE_MODEL]: {
        prompt_tokens: USAGE.prompt_tokens,
        completion_tokens: USAGE.completion_tokens,
        total_tokens: USAGE.prompt_tokens + USAGE.completion_tokens,
        requests: 1,
        cache_read_input_tokens: USAGE.prompt_tokens_details.cached_tokens,
        reasoning_tokens: USAGE.completion_tokens_details.reasoning_tokens,
      },
    });
    expect(tokens(calls)).toMatchObject({ input: 2 * USAGE.prompt_tokens, calls: 2 });
    expect(one(calls, "chatRun").end.output).toBe(TEXT);
  });
});
