/**
 * Usage rolled up the call tree (issue #22): on the calls route, every call's `summary.usage` is its own usage plus
 * that of its descendants, keyed by model, each request counted once — what the service reads a trace's tokens and
 * cost from (its root's summary). Real wrapped clients against the loopback stand-ins, real `ai` 6 (and `ai` 7 on
 * Node ≥ 22), and what reaches `tracewire dev` (in-process) read back through its query API and checked field by
 * field, and against the vendor's rule: a call's usage is the sum of the leaves below it (Python's
 * `sum_dict_leaves` over the children's summaries).
 */
import { context, trace } from "@opentelemetry/api";
import type { JSONSchema7 } from "ai6";
import { generateText as generateText6, jsonSchema, stepCountIs, streamText as streamText6, tool } from "ai6";
import { createOpenAICompatible } from "ai6-openai-compatible";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CallSchema, TracingClient } from "../../src/api/index.js";
import { InferenceClient } from "../../src/api/inference/client.js";
import { TrainingClient } from "../../src/api/training/client.js";
import { getCurrentCall, init, op, type TracewireHandle } from "../../src/index.js";
import { tracewireTelemetry } from "../../src/instrument/ai.js";
import { wrapAnthropic } from "../../src/instrument/anthropic.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { type DevServer, startDevServer } from "../../src/server/index.js";
import {
  ANTHROPIC_VERSIONS,
  makeAnthropic,
  setupAnthropicServer,
  TEXT_REQUEST,
} from "../instrument/anthropic-support.js";
import { MESSAGES, makeClient, setupOpenAIServer, usageOfOneRequest, VERSIONS } from "../instrument/support.js";
import { MODEL_SUFFIX as ANTHROPIC_SUFFIX } from "../support/anthropic-server.js";
import { gc } from "../support/gc.js";
import { MODEL_SUFFIX, USAGE } from "../support/openai-server.js";
import { TracingDouble } from "../support/tracing-double.js";

const KEY = "tw-local-key-0123456789abcdef";
const PROJECT = "acme/rollup";
const quiet = { warn() {}, error() {} };
const HAS_NODE22 = Number(process.versions.node.split(".")[0]) >= 22;

const openai = setupOpenAIServer();
const anthropic = setupAnthropicServer();

type Usage = Record<string, Record<string, unknown>>;

/** The vendor's `sum_dict_leaves`: numbers at the same path are summed, nested objects merged the same way. */
function sumDictLeaves(dicts: Record<string, unknown>[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const nested: Record<string, Record<string, unknown>[]> = {};
  for (const dict of dicts) {
    for (const [key, value] of Object.entries(dict)) {
      if (value !== null && typeof value === "object" && !Array.isArray(value)) {
        nested[key] = [...(nested[key] ?? []), value as Record<string, unknown>];
      } else if (typeof value === "number") result[key] = ((result[key] as number | undefined) ?? 0) + value;
    }
  }
  for (const [key, values] of Object.entries(nested)) result[key] = sumDictLeaves(values);
  return result;
}

/** One request's usage, `n` times (what `n` requests of that model add up to). */
function times(usage: Usage, n: number): Usage {
  const out: Usage = {};
  for (const [model, fields] of Object.entries(usage)) {
    out[model] = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, (v as number) * n]));
  }
  return out;
}

/** A trace read back from the service, with lookups by op name and the tree. */
class Trace {
  constructor(readonly calls: CallSchema[]) {}

  named(opName: string): CallSchema[] {
    return this.calls.filter((c) => c.op_name === opName);
  }

  one(opName: string): CallSchema {
    const calls = this.named(opName);
    expect(calls, `calls named ${opName}`).toHaveLength(1);
    return calls[0] as CallSchema;
  }

  children(call: CallSchema): CallSchema[] {
    return this.calls.filter((c) => c.parent_id === call.id);
  }

  usage(call: CallSchema): Usage | undefined {
    return (call.summary as { usage?: Usage } | null | undefined)?.usage;
  }

  /** `call` and every call below it. */
  subtree(call: CallSchema): CallSchema[] {
    return [call, ...this.children(call).flatMap((c) => this.subtree(c))];
  }

  /**
   * Checks the vendor's rule for every call: its usage is the sum of the usage of the model requests in its subtree
   * (the leaves of the usage tree: calls with a GenAI model operation; an ai 6 model call can have its tool calls
   * below it), absent when none has any.
   */
  expectSumOfLeaves(): void {
    const isRequest = (c: CallSchema) => MODEL_OPERATIONS.includes(String(c.attributes.operation));
    for (const call of this.calls) {
      const usages = this.subtree(call)
        .filter(isRequest)
        .map((request) => this.usage(request))
        .filter((u): u is Usage => u !== undefined);
      const expected = usages.length === 0 ? undefined : sumDictLeaves(usages);
      expect(this.usage(call), `usage of ${call.op_name}`).toEqual(expected);
    }
  }
}

/** GenAI operations that are one model request. */
const MODEL_OPERATIONS = ["chat", "embeddings", "text_completion", "generate_content"];

describe("on tracewire dev", () => {
  let service: DevServer;
  let tracing: TracewireHandle;
  let reader: TracingClient;
  let chat: ReturnType<typeof makeClient>;

  beforeAll(async () => {
    service = await startDevServer({ port: 0, storage: "memory", apiKey: KEY, logger: quiet });
    tracing = init({
      baseUrl: service.url,
      apiKey: KEY,
      project: PROJECT,
      env: {},
      scheduledDelayMillis: 10,
      logger: quiet,
    });
    reader = new TracingClient({ baseUrl: service.url, apiKey: KEY, project: PROJECT, env: {} });
    chat = wrapOpenAI(makeClient(VERSIONS[0]!, openai.server));
  });
  afterAll(async () => {
    await tracing.shutdown();
    await reader.close();
    await service.close();
  });

  /** Runs `body` as the root op `root`, flushes, and reads its whole trace back from the service. */
  async function traced(body: () => Promise<void>): Promise<Trace> {
    let traceId = "";
    const root = op(async function root() {
      traceId = getCurrentCall()!.traceId;
      await body();
    });
    await root();
    await tracing.flush();
    const calls: CallSchema[] = [];
    for await (const call of reader.calls.streamQuery({ filter: { trace_ids: [traceId] } })) calls.push(call);
    return new Trace(calls);
  }

  const ask = (model: string) => chat.chat.completions.create({ model, messages: MESSAGES });
  const askStreamed = async (model: string) => {
    for await (const _chunk of await chat.chat.completions.create({ model, messages: MESSAGES, stream: true }));
  };
  const MINI = `gpt-4o-mini${MODEL_SUFFIX}`;
  const BIG = `gpt-4.1${MODEL_SUFFIX}`;

  it("an op over two wrapped chat calls of one model: both requests, every field summed, each counted once", async () => {
    const t = await traced(async () => {
      await ask("gpt-4o-mini");
      await askStreamed("gpt-4o-mini");
    });
    const calls = t.named("openai.chat.completions.create");
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(t.usage(call)).toEqual(usageOfOneRequest(MINI));
    expect(t.usage(t.one("root"))).toEqual({
      [MINI]: {
        prompt_tokens: 2 * USAGE.prompt_tokens,
        completion_tokens: 2 * USAGE.completion_tokens,
        total_tokens: 2 * USAGE.total_tokens,
        requests: 2,
        cache_read_input_tokens: 2 * USAGE.prompt_tokens_details.cached_tokens,
        reasoning_tokens: 2 * USAGE.completion_tokens_details.reasoning_tokens,
      },
    });
    t.expectSumOfLeaves();
  });

  it("an op over chat calls of two models: one entry per model", async () => {
    const t = await traced(async () => {
      await ask("gpt-4o-mini");
      await ask("gpt-4.1");
    });
    expect(t.usage(t.one("root"))).toEqual({ ...usageOfOneRequest(MINI), ...usageOfOneRequest(BIG) });
    t.expectSumOfLeaves();
  });

  it("ops nested three deep: each level is its own calls plus everything below it", async () => {
    const inner = op(async function inner() {
      await ask("gpt-4o-mini");
      await ask("gpt-4.1");
    });
    const middle = op(async function middle() {
      await ask("gpt-4o-mini");
      await inner();
    });
    const outer = op(async function outer() {
      await middle();
      await askStreamed("gpt-4o-mini");
    });
    const t = await traced(async () => {
      await outer();
    });
    const one = usageOfOneRequest(MINI);
    expect(t.usage(t.one("inner"))).toEqual({ ...one, ...usageOfOneRequest(BIG) });
    expect(t.usage(t.one("middle"))).toEqual({ ...times(one, 2), ...usageOfOneRequest(BIG) });
    expect(t.usage(t.one("outer"))).toEqual({ ...times(one, 3), ...usageOfOneRequest(BIG) });
    expect(t.usage(t.one("root"))).toEqual(t.usage(t.one("outer")));
    t.expectSumOfLeaves();
  });

  it("every wrapper's native calls roll up: chat, Responses, embeddings, Anthropic, Inference and Training clients", async () => {
    const claude = wrapAnthropic(makeAnthropic(ANTHROPIC_VERSIONS[0]!, anthropic.server));
    const inference = new InferenceClient({ baseUrl: openai.server.baseURL, apiKey: "k", env: {} });
    const training = new TrainingClient({ baseUrl: openai.server.url, apiKey: "k", env: {} });
    const t = await traced(async () => {
      await ask("gpt-4o-mini");
      await chat.responses.create({ model: "gpt-4.1", input: "Say hello." });
      for await (const _e of await chat.responses.create({ model: "gpt-4.1", input: "Say hello.", stream: true }));
      await chat.embeddings.create({ model: "text-embedding-3-small", input: ["a", "b"] });
      await claude.messages.create(TEXT_REQUEST);
      await claude.messages.stream(TEXT_REQUEST).finalMessage();
      await inference.chat.completions.create({ model: "llama-3.1-8b", messages: MESSAGES });
      await training.chat.completions.create({ model: "my-lora", messages: MESSAGES });
    });
    await Promise.all([inference.close(), training.close()]);
    const leaves = t.calls.filter((c) => c.op_name !== "root");
    expect(leaves).toHaveLength(8);
    for (const leaf of leaves) {
      const usage = t.usage(leaf);
      expect(usage, leaf.op_name).toBeDefined();
      expect(Object.values(usage!).map((u) => u.requests)).toEqual([1]);
    }
    const root = t.usage(t.one("root"))!;
    expect(Object.keys(root).sort()).toEqual(
      [
        MINI,
        `gpt-4.1${MODEL_SUFFIX}`,
        `text-embedding-3-small${MODEL_SUFFIX}`,
        `claude-haiku-4-5${ANTHROPIC_SUFFIX}`,
        `llama-3.1-8b${MODEL_SUFFIX}`,
        `my-lora${MODEL_SUFFIX}`,
      ].sort(),
    );
    expect(root[`gpt-4.1${MODEL_SUFFIX}`]!.requests).toBe(2);
    expect(root[`claude-haiku-4-5${ANTHROPIC_SUFFIX}`]).toMatchObject({
      requests: 2,
      cache_read_input_tokens: 14,
      cache_creation_input_tokens: 10,
    });
    t.expectSumOfLeaves();
  });

  it("a foreign span in between passes on what was used below it; a foreign LLM span counts its own usage", async () => {
    const tracer = trace.getTracer("app-lib");
    const t = await traced(async () => {
      // An HTTP-like span of another instrumentation (OTLP route) with a wrapped call inside.
      await tracer.startActiveSpan("GET /weather", async (span) => {
        await ask("gpt-4o-mini");
        span.end();
      });
      // Another library's LLM span: its own GenAI usage, nothing traced below it.
      tracer
        .startSpan("chat other-model", {
          attributes: {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "other-model",
            "gen_ai.response.model": "other-model-v2",
            "gen_ai.usage.input_tokens": 100,
            "gen_ai.usage.output_tokens": 7,
          },
        })
        .end();
      // A foreign LLM span over a traced request reports that same request: only the traced call counts.
      await tracer.startActiveSpan(
        "chat gpt-4o-mini",
        {
          attributes: {
            "gen_ai.response.model": MINI,
            "gen_ai.usage.input_tokens": 19,
            "gen_ai.usage.output_tokens": 10,
          },
        },
        async (span) => {
          await ask("gpt-4o-mini");
          span.end();
        },
      );
    });
    const http = t.one("GET /weather");
    expect(t.children(http).map((c) => c.op_name)).toEqual(["openai.chat.completions.create"]);
    expect(t.usage(t.one("root"))).toEqual({
      ...times(usageOfOneRequest(MINI), 2),
      "other-model-v2": { prompt_tokens: 100, completion_tokens: 7, total_tokens: 107, requests: 1 },
    });
  });

  it("a child that ends after its parent leaves the parent as sent and counts in the nearest open ancestor", async () => {
    let late: AsyncIterable<unknown> | undefined;
    const parent = op(async function parent() {
      await ask("gpt-4o-mini");
      // A stream handed out of the op and read by its caller after the op returned.
      late = await chat.chat.completions.create({ model: "gpt-4.1", messages: MESSAGES, stream: true });
    });
    let afterRoot: AsyncIterable<unknown> | undefined;
    const t = await traced(async () => {
      await parent();
      for await (const _chunk of late!);
      afterRoot = await chat.chat.completions.create({ model: "gpt-4o-mini", messages: MESSAGES, stream: true });
    });
    // Read after the root ended: it counts in no call (every ancestor had been sent).
    for await (const _chunk of afterRoot!);
    await tracing.flush();
    const calls: CallSchema[] = [];
    for await (const call of reader.calls.streamQuery({ filter: { trace_ids: [t.calls[0]!.trace_id] } }))
      calls.push(call);
    const all = new Trace(calls);
    expect(all.named("openai.chat.completions.create")).toHaveLength(3);
    expect(all.usage(all.one("parent"))).toEqual(usageOfOneRequest(MINI));
    expect(all.usage(all.one("root"))).toEqual({ ...usageOfOneRequest(MINI), ...usageOfOneRequest(BIG) });
  });

  it("a child that never ends counts nowhere; the parent ends with what ended before it", async () => {
    const t = await traced(async () => {
      await ask("gpt-4o-mini");
      // A span whose end never comes (its usage set, as an instrumentation would before ending it).
      trace
        .getTracer("app-lib")
        .startSpan("chat lost", { attributes: { "gen_ai.response.model": "lost", "gen_ai.usage.input_tokens": 5 } });
    });
    expect(t.usage(t.one("root"))).toEqual(usageOfOneRequest(MINI));
  });

  it("a call over no model call records no usage at all", async () => {
    const t = await traced(async () => {
      await op(async function plain() {
        return 1;
      })();
    });
    expect(t.usage(t.one("root"))).toBeUndefined();
    expect(t.usage(t.one("plain"))).toBeUndefined();
  });

  describe("the AI SDK's operation, step and model calls: each request once", () => {
    const TOOLS_SCHEMA: JSONSchema7 = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

    it.each(["generateText", "streamText"] as const)("ai 6 %s: operation = both model calls", async (fn) => {
      const provider = createOpenAICompatible({
        name: "standin",
        baseURL: openai.server.baseURL,
        apiKey: "sk-test",
        includeUsage: true,
      });
      const params = {
        model: provider("gpt-4o-mini"),
        prompt: "Weather in Paris?",
        maxRetries: 0,
        stopWhen: stepCountIs(3),
        tools: {
          get_weather: tool({ inputSchema: jsonSchema<{ city: string }>(TOOLS_SCHEMA), execute: async () => "sunny" }),
          get_time: tool({ inputSchema: jsonSchema<{ city: string }>(TOOLS_SCHEMA), execute: async () => "12:00" }),
        },
        experimental_telemetry: { isEnabled: true },
      };
      const t = await traced(async () => {
        if (fn === "generateText") await generateText6(params);
        else await streamText6(params).consumeStream();
      });
      const models = t.named(`ai.${fn}.${fn === "generateText" ? "doGenerate" : "doStream"}`);
      expect(models).toHaveLength(2);
      for (const model of models) expect(t.usage(model)).toEqual(usageOfOneRequest(MINI));
      const both = times(usageOfOneRequest(MINI), 2);
      expect(t.usage(t.one(`ai.${fn}`))).toEqual(both);
      expect(t.usage(t.one("root"))).toEqual(both);
      t.expectSumOfLeaves();
    });

    describe.skipIf(!HAS_NODE22)("ai 7", () => {
      let ai: typeof import("ai");
      let createCompatible7: typeof import("@ai-sdk/openai-compatible").createOpenAICompatible;
      beforeAll(async () => {
        ai = await import("ai");
        ({ createOpenAICompatible: createCompatible7 } = await import("@ai-sdk/openai-compatible"));
        ai.registerTelemetry(tracewireTelemetry());
      });
      afterAll(() => {
        globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = undefined;
      });

      it.each(["generateText", "streamText"] as const)("%s: operation = steps = model calls", async (fn) => {
        const provider = createCompatible7({
          name: "standin",
          baseURL: openai.server.baseURL,
          apiKey: "sk-test",
          includeUsage: true,
        });
        const params = {
          model: provider("gpt-4o-mini"),
          prompt: "Weather in Paris?",
          maxRetries: 0,
          stopWhen: ai.stepCountIs(3),
          tools: {
            get_weather: ai.tool({
              inputSchema: ai.jsonSchema<{ city: string }>(TOOLS_SCHEMA),
              execute: async () => "sunny",
            }),
            get_time: ai.tool({
              inputSchema: ai.jsonSchema<{ city: string }>(TOOLS_SCHEMA),
              execute: async () => "12:00",
            }),
          },
        };
        const t = await traced(async () => {
          if (fn === "generateText") await ai.generateText(params);
          else await ai.streamText(params).consumeStream();
        });
        const steps = t.named(`ai.${fn}.step`);
        expect(steps).toHaveLength(2);
        for (const step of steps) {
          const [model] = t.children(step).filter((c) => t.usage(c) !== undefined);
          expect(t.usage(model!)).toEqual(usageOfOneRequest(MINI));
          expect(t.usage(step)).toEqual(usageOfOneRequest(MINI));
        }
        const both = times(usageOfOneRequest(MINI), 2);
        expect(t.usage(t.one(`ai.${fn}`))).toEqual(both);
        expect(t.usage(t.one("root"))).toEqual(both);
        t.expectSumOfLeaves();
      });
    });
  });
});

describe("a child whose call tracewire dropped (a full queue)", () => {
  let double: TracingDouble;
  let tracing: TracewireHandle;
  beforeAll(async () => {
    double = await TracingDouble.start();
    tracing = init({ baseUrl: double.url, project: PROJECT, env: {}, maxQueueSize: 3, logger: quiet });
  });
  afterAll(async () => {
    double.recover();
    await tracing.shutdown();
    await double.close();
  });

  it("still counts in its parent: the usage was used, only its record was lost", async () => {
    double.down(["/call/upsert_batch"], "reset");
    const llm = op(function llm(model: string) {
      trace.getActiveSpan()!.setAttributes({
        "gen_ai.response.model": model,
        "gen_ai.usage.input_tokens": 12,
        "gen_ai.usage.output_tokens": 5,
      });
    });
    // Synchronous ops: root start, first llm start and end fill the queue of 3; the second llm's start is dropped
    // (and so its end); the root's end is always queued.
    const root = op(function root() {
      llm("m1");
      llm("m2");
    });
    root();
    expect(tracing.stats().calls).toMatchObject({ queued: 4, dropped: 2 });
    double.recover();
    await tracing.flush();
    expect(double.callsNamed("llm")).toHaveLength(1);
    const [sent] = double.callsNamed("root");
    expect((sent!.end!.summary as { usage: Usage }).usage).toEqual({
      m1: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, requests: 1 },
      m2: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, requests: 1 },
    });
  });
});

describe("memory stays bounded", () => {
  let double: TracingDouble;
  let tracing: TracewireHandle;
  beforeAll(async () => {
    double = await TracingDouble.start();
    tracing = init({ baseUrl: double.url, project: PROJECT, env: {}, maxQueueSize: 100, logger: quiet });
  });
  afterAll(async () => {
    double.recover();
    await tracing.shutdown();
    await double.close();
  });

  const llm = op(function llm(model: string) {
    trace.getActiveSpan()!.setAttributes({
      "gen_ai.response.model": model,
      "gen_ai.usage.input_tokens": 3,
      "gen_ai.usage.output_tokens": 1,
    });
  });

  it("a call keeps at most 64 models: the first ones, each counted in full", async () => {
    const many = op(function many() {
      for (let i = 0; i < 100; i++) {
        llm(`m-${i}`);
        llm(`m-${i}`);
      }
    });
    many();
    await tracing.flush();
    const [sent] = double.callsNamed("many");
    const usage = (sent!.end!.summary as { usage: Usage }).usage;
    expect(Object.keys(usage)).toEqual(Array.from({ length: 64 }, (_, i) => `m-${i}`));
    expect(usage["m-63"]).toEqual({ prompt_tokens: 6, completion_tokens: 2, total_tokens: 8, requests: 2 });
  });

  it("a model named __proto__ is one more key, and nothing reaches Object.prototype", async () => {
    const odd = op(function odd() {
      llm("__proto__");
      llm("__proto__");
      llm("constructor");
    });
    odd();
    await tracing.flush();
    const [sent] = double.callsNamed("odd");
    const usage = (sent!.end!.summary as { usage: Usage }).usage;
    expect(Object.keys(usage)).toEqual(["__proto__", "constructor"]);
    expect(Object.getOwnPropertyDescriptor(usage, "__proto__")?.value).toEqual({
      prompt_tokens: 6,
      completion_tokens: 2,
      total_tokens: 8,
      requests: 2,
    });
    expect(({} as Record<string, unknown>).prompt_tokens).toBeUndefined();
  });

  it("a parent that never ends, over 100k calls of distinct models: heap stays flat after GC", async () => {
    double.down(["/call/upsert_batch"], "reset");
    let burst: (from: number, count: number) => void = () => {};
    const forever = op(async function forever() {
      const inside = context.active();
      burst = (from, count) =>
        context.with(inside, () => {
          for (let i = from; i < from + count; i++) llm(`model-${i}`);
        });
      await new Promise(() => {});
    });
    void forever();
    burst(0, 5_000); // warm-up: the parent's 64 models are taken from here on
    gc!();
    const before = process.memoryUsage().heapUsed;
    burst(5_000, 100_000);
    gc!();
    const grown = process.memoryUsage().heapUsed - before;
    expect(tracing.stats().calls.dropped).toBeGreaterThanOrEqual(2 * 100_000); // the children were calls of its
    // One entry per distinct model would keep ~15 MB here; the capped accumulator keeps nothing more.
    expect(grown).toBeLessThan(4 * 1024 * 1024);
  }, 60_000);
});
