/**
 * The native call record of a wrapOpenAI call is as rich as its span: request facts as call attributes at start
 * (the keys the service's OTLP ingestion promotes GenAI attributes to, plus `server`), outcome facts in the end's
 * summary (`gen_ai`: response id and model, finish reasons, time to first chunk, error type; `tracewire`: a
 * cancelled status), usage with cached and reasoning tokens, and the same op_name on both routes. Also: a connection
 * cut mid-stream is an error typed by its socket code, and a cancelled stream's output messages say `cancelled`.
 */
import { describe, expect, it } from "vitest";
import { callOf } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { MODEL_SUFFIX, TEXT } from "../support/openai-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import {
  collect,
  MESSAGES,
  makeClient,
  setupOpenAIServer,
  summaryOf,
  TOOLS,
  usageOfOneRequest,
  VERSIONS,
} from "./support.js";

const CREATE = "openai.chat.completions.create";
const MODEL = "gpt-4o-mini";
const RESPONSE_MODEL = `${MODEL}${MODEL_SUFFIX}`;
/** What a connection cut looks like to `error.type`: the socket's error code, never the error class. */
const SOCKET_CODE = /^(UND_ERR_SOCKET|ECONNRESET|EPIPE)$/;

const JSON_SCHEMA_FORMAT = {
  type: "json_schema" as const,
  json_schema: { name: "weather", schema: { type: "object", properties: {} }, strict: false },
};

const ctx = setupOpenAIServer();

describe.each(VERSIONS)("$name", (version) => {
  describe("calls route", () => {
    const session = setupSessionPerTest();
    const client = () => wrapOpenAI(makeClient(version, ctx.server));

    it("a completion: request facts as call attributes, response facts and full usage in the summary", async () => {
      await client().chat.completions.create({ model: MODEL, messages: MESSAGES, temperature: 0.2, n: 1 });
      const call = await session.only(CREATE);
      const port = Number(new URL(ctx.server.url).port);
      expect(call.start.attributes).toEqual({
        operation: "chat",
        provider: "openai",
        model: MODEL,
        model_parameters: { model: MODEL, temperature: 0.2 },
        server: { address: "127.0.0.1", port },
      });
      expect(call.end!.summary).toEqual({
        usage: usageOfOneRequest(RESPONSE_MODEL),
        gen_ai: { response_id: "chatcmpl-standin-1", response_model: RESPONSE_MODEL, finish_reasons: ["stop"] },
      });
      // Reasoning and cached tokens keep the keys the service's usage rollups read.
      expect(summaryOf(call).usage).toMatchObject({
        [RESPONSE_MODEL]: { reasoning_tokens: 3, cache_read_input_tokens: 6 },
      });
    });

    it("an AzureOpenAI client: provider azure.ai.openai, its resource as server, its api-key nowhere", async () => {
      const modules: Record<string, string> = { "openai v6": "openai", "openai v5": "openai5", "openai v7": "openai7" };
      const { AzureOpenAI } = (await import(modules[version.name]!)) as typeof import("openai");
      const sent: string[] = [];
      // The resource's host, answered by the stand-in: what is recorded comes from the client's base URL.
      const toStandIn: typeof fetch = (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        sent.push(`${url.host}${url.pathname}`);
        return fetch(`${ctx.server.url}/v1/chat/completions`, init);
      };
      const key = "azure-key-0123456789";
      const azure = wrapOpenAI(
        new AzureOpenAI({
          apiKey: key,
          endpoint: "https://myres.openai.azure.com",
          apiVersion: "2024-10-21",
          deployment: "gpt4o-prod",
          fetch: toStandIn,
          maxRetries: 0,
        }),
      );
      await azure.chat.completions.create({ model: MODEL, messages: MESSAGES });
      expect(sent).toEqual(["myres.openai.azure.com/openai/deployments/gpt4o-prod/chat/completions"]);
      const call = await session.only(CREATE);
      expect(call.start.attributes).toMatchObject({
        provider: "azure.ai.openai",
        server: { address: "myres.openai.azure.com", port: 443 },
      });
      expect(summaryOf(call).usage).toEqual(usageOfOneRequest(RESPONSE_MODEL));
      expect(session.double.wireText()).not.toContain(key);
    });

    it("a stream: the time to first chunk and the finish reasons are in the summary", async () => {
      await collect(await client().chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true, n: 2 }));
      const call = await session.only(CREATE);
      const genAi = summaryOf(call).gen_ai!;
      expect(genAi.finish_reasons).toEqual(["stop", "stop"]);
      expect(genAi.response_id).toBe("chatcmpl-standin-2");
      expect(typeof genAi.time_to_first_chunk).toBe("number");
      expect(genAi.time_to_first_chunk as number).toBeGreaterThanOrEqual(0);
      expect(call.start.attributes).toMatchObject({ model_parameters: { stream: true, choice: { count: 2 } } });
    });

    it("a stream the caller breaks out of is recorded as cancelled, not as a success with nothing to say", async () => {
      const stream = await client().chat.completions.create({ model: "m-slow", messages: MESSAGES, stream: true });
      for await (const _chunk of stream) break;
      const call = await session.only(CREATE);
      expect(call.end!.exception).toBeUndefined();
      expect(summaryOf(call).tracewire).toEqual({ status: "cancelled", cancel_reason: "break" });
    });

    it("an API error: the exception, and error_type in the summary", async () => {
      await client()
        .chat.completions.create({ model: "m-status-429", messages: MESSAGES })
        .then(
          () => undefined,
          () => undefined,
        );
      const call = await session.only(CREATE);
      expect(call.end!.exception).toContain("429");
      expect(summaryOf(call).gen_ai).toEqual({ error_type: "429" });
    });

    it("a connection cut mid-stream: the caller gets the SDK's error, the call an exception typed by the socket code", async () => {
      const seen: unknown[] = [];
      const error = await (async () => {
        for await (const chunk of await client().chat.completions.create({
          model: "m-cut",
          messages: MESSAGES,
          stream: true,
        }))
          seen.push(chunk);
      })().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect(seen).toHaveLength(2);
      const call = await session.only(CREATE);
      expect(typeof call.end!.exception).toBe("string");
      expect(summaryOf(call).gen_ai!.error_type).toMatch(SOCKET_CODE);
    });

    it("records what was sent and what arrived, whatever the caller does to those objects afterwards", async () => {
      // The request and the answer are encoded as they are, without a copy, when they are plain JSON: that must
      // happen before the caller's next line can change them.
      const params = { model: MODEL, messages: [...MESSAGES], temperature: 0.2 };
      const sent = JSON.parse(JSON.stringify(params));
      const completion = await client().chat.completions.create(params);
      const arrived = JSON.parse(JSON.stringify(completion));
      params.messages.push({ role: "user", content: "and a follow-up" });
      params.temperature = 1;
      completion.choices[0]!.message.content = "changed by the caller";
      const call = await session.only(CREATE);
      expect(call.start.inputs).toEqual(sent);
      expect(call.end!.output).toEqual(arrived);
    });

    it("a redact hook that edits the payload in place never touches the caller's objects", async () => {
      await session.restart({
        redact: (payload) => {
          const messages = (payload as { messages?: { content: string }[] }).messages;
          for (const m of messages ?? []) m.content = "[redacted]";
          const choices = (payload as { choices?: { message: { content: string } }[] }).choices;
          for (const c of choices ?? []) c.message.content = "[redacted]";
        },
      });
      const messages = MESSAGES.map((m) => ({ ...m }));
      const completion = await client().chat.completions.create({ model: MODEL, messages });
      expect(messages).toEqual(MESSAGES);
      expect(completion.choices[0]!.message.content).toBe(TEXT);
      const call = await session.only(CREATE);
      expect((call.start.inputs as { messages: { content: string }[] }).messages.map((m) => m.content)).toEqual(
        MESSAGES.map(() => "[redacted]"),
      );
      expect((call.end!.output as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe(
        "[redacted]",
      );
    });

    it("callOf() works on a parse() result", async () => {
      const parsed = await client().chat.completions.parse({
        model: MODEL,
        messages: MESSAGES,
        response_format: JSON_SCHEMA_FORMAT,
      });
      const call = await session.only("openai.chat.completions.parse");
      expect(callOf(parsed)?.id).toBe(call.start.id);
    });

    it("callOf() works on the stream() runner's final completion and on each runTools() round's completion", async () => {
      const runner = client().chat.completions.stream({ model: MODEL, messages: MESSAGES });
      const final = await runner.finalChatCompletion();
      expect(final.choices[0]!.message.content).toBe(TEXT);
      const streamCall = await session.only("openai.chat.completions.stream");
      expect(callOf(final)?.id).toBe(streamCall.start.id);

      const completions: unknown[] = [];
      const tools = TOOLS.map((t) => ({
        type: "function" as const,
        function: {
          ...t.function,
          parse: (text: string) => JSON.parse(text) as object,
          function: (args: object) => JSON.stringify(args),
        },
      }));
      // The SDK types runnable tools with branded helpers; these plain ones are what it accepts at runtime.
      const run = client().chat.completions.runTools({ model: MODEL, messages: MESSAGES, tools: tools as never });
      run.on("chatCompletion", (completion) => completions.push(completion));
      await run.finalChatCompletion();
      await session.tracing.flush();
      const rounds = session.double.callsNamed("openai.chat.completions.runTools");
      expect(rounds).toHaveLength(2);
      expect(completions.map((c) => callOf(c)?.id)).toEqual(rounds.map((r) => r.start!.id));
    });
  });

  describe("portable mode", () => {
    const session = setupSessionPerTest({ export: "otlp" });

    it("the span reaches the service under the same op_name as on the calls route", async () => {
      await wrapOpenAI(makeClient(version, ctx.server)).chat.completions.create({ model: MODEL, messages: MESSAGES });
      await session.tracing.flush();
      expect(session.double.spans.map((s) => s.name)).toEqual([CREATE]);
    });

    it("a connection cut mid-stream sets error.type to the socket code", async () => {
      const stream = await wrapOpenAI(makeClient(version, ctx.server)).chat.completions.create({
        model: "m-cut",
        messages: MESSAGES,
        stream: true,
      });
      await collect(stream).catch(() => undefined);
      await session.tracing.flush();
      const [span] = session.double.spans;
      expect(span!.attributes["error.type"]).toMatch(SOCKET_CODE);
    });

    it("a cancelled stream's output messages say cancelled, not error", async () => {
      await session.restart({ export: "otlp" });
      const traced = wrapOpenAI(makeClient(version, ctx.server), { contentAttributes: true });
      const stream = await traced.chat.completions.create({ model: "m-slow", messages: MESSAGES, stream: true });
      for await (const _chunk of stream) break;
      await session.tracing.flush();
      const [span] = session.double.spans;
      const messages = JSON.parse(span!.attributes["gen_ai.output.messages"] as string) as { finish_reason: string }[];
      expect(messages.map((m) => m.finish_reason)).toEqual(["cancelled"]);
    });
  });
});
