/**
 * Every public function of `tracewire`, `tracewire/otel`, `tracewire/api`, `tracewire/openai`, `tracewire/anthropic`
 * and `tracewire/ai`, called with bad input (the table in cases.ts), throws a typed error whose message names the parameter — synchronously or as the
 * rejection of the promise it returns — and sends nothing. Then: nothing already accepted was lost, and the table
 * covers every export and every client method (a new one without a case fails here).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as apiExports from "../../src/api/index.js";
import { InferenceClient, TracingClient, TrainingClient } from "../../src/api/index.js";
import * as rootExports from "../../src/index.js";
import { ConfigError, callOf, op, TracewireError, ValidationError } from "../../src/index.js";
import * as aiExports from "../../src/instrument/ai.js";
import * as anthropicExports from "../../src/instrument/anthropic-entry.js";
import * as openaiExports from "../../src/instrument/index.js";
import { globalState } from "../../src/otel/state.js";
import * as otelExports from "../../src/otel-entry.js";
import { createOtlpExporter } from "../../src/otel-entry.js";
import { TestServer } from "../support/server.js";
import { type Session, startSession } from "../support/tracing-session.js";
import { BAD_INPUTS, type BadInput, type Ctx, NO_BAD_INPUT } from "./cases.js";

/** Runs a case to its first error: a synchronous throw, a rejected promise, or an async iterable that throws. */
async function firstError(run: () => unknown): Promise<unknown> {
  try {
    const result = run();
    if (result && typeof (result as PromiseLike<unknown>).then === "function") await result;
    else if (result && typeof (result as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function") {
      for await (const _ of result as AsyncIterable<unknown>) break;
    }
  } catch (err) {
    return err;
  }
  return undefined;
}

function checkError(c: BadInput, err: unknown): void {
  const where = `${c.target} with ${c.input}`;
  expect(err, `${where}: nothing was thrown`).toBeInstanceOf(TracewireError);
  expect(err, `${where}: ${(err as Error)?.name}: ${(err as Error)?.message}`).toBeInstanceOf(c.error);
  const error = err as Error & { param?: string; setting?: string };
  expect(error.message, where).toContain(c.names);
  // Clear, and never an echo of a huge value.
  expect(error.message.length, where).toBeLessThan(400);
  if (c.param !== undefined) {
    if (error instanceof ValidationError) expect(error.param, where).toBe(c.param);
    if (error instanceof ConfigError) expect(error.setting, where).toContain(c.param);
  }
  if (error instanceof ConfigError) expect(error.setting, where).toContain(c.names.split(" ")[0]!);
}

/** Cases that need no running tracing: constructors and `init()` (which would return a running handle as is). */
const isConstruction = (c: BadInput) =>
  [
    "init",
    "TracewireSpanProcessor",
    "createOtlpExporter",
    "OtlpTraceExporter",
    "TracingClient",
    "InferenceClient",
    "TrainingClient",
    "wrapOpenAI",
  ].includes(c.target);

let server: TestServer;
let session: Session;
let ctx: Ctx;
let acceptedCallId = "";

beforeAll(async () => {
  server = await TestServer.start();
});
afterAll(async () => {
  await server.close();
});

describe("constructors and init() refuse bad settings before anything starts", () => {
  it.each(BAD_INPUTS.filter(isConstruction).map((c) => ({ c, title: `${c.target}: ${c.input}` })))(
    "$title",
    async ({ c }) => {
      const err = await firstError(() => c.run({} as Ctx));
      checkError(c, err);
      // Nothing half-registered: no live processor, no handle.
      expect(globalState().live.size).toBe(0);
      expect(globalState().handle).toBeUndefined();
    },
  );
});

describe("functions and methods refuse bad arguments before sending anything", () => {
  beforeAll(async () => {
    session = await startSession();
    const traced = op(function accepted(x: number) {
      return x + 1;
    });
    const [, call] = traced.invoke(41);
    acceptedCallId = call!.id;
    const client = { baseUrl: server.url, env: {} };
    ctx = {
      server,
      url: server.url,
      tracing: new TracingClient({ ...client, project: "acme/demo" }),
      noProject: new TracingClient(client),
      inference: new InferenceClient(client),
      training: new TrainingClient(client),
      call: call!,
      handle: session.tracing,
    };
  });
  afterAll(async () => {
    await Promise.all([ctx.tracing.close(), ctx.noProject.close(), ctx.inference.close(), ctx.training.close()]);
    await session.stop();
  });

  it.each(BAD_INPUTS.filter((c) => !isConstruction(c)).map((c) => ({ c, title: `${c.target}: ${c.input}` })))(
    "$title",
    async ({ c }) => {
      const before = server.requests.length;
      const err = await firstError(() => c.run(ctx));
      checkError(c, err);
      expect(server.requests.length, "a request was sent").toBe(before);
    },
  );

  it("answers instead of throwing where the function is a lookup", () => {
    for (const value of [null, undefined, 42, "x", Symbol("s"), {}, []]) expect(callOf(value)).toBeUndefined();
  });

  it("the span processor never throws into the SDK's call: garbage spans are counted as internal errors", () => {
    const processor = session.tracing.processor!;
    const before = processor.stats().internalErrors;
    for (const garbage of [null, undefined, 42, {}, { spanContext: 5 }])
      expect(() => {
        processor.onStart(garbage as never, undefined as never);
        processor.onEnd(garbage as never);
      }).not.toThrow();
    expect(processor.stats().internalErrors).toBeGreaterThan(before);
  });

  it("the standalone OTLP exporter reports FAILED for spans that are not an array, without throwing", async () => {
    const exporter = createOtlpExporter({ baseUrl: server.url, project: "acme/demo", env: {} });
    const result = await new Promise<{ code: number; error?: Error }>((resolve) =>
      exporter.export(null as never, resolve),
    );
    expect(result.code).toBe(1);
    expect(result.error).toBeInstanceOf(ValidationError);
    expect((result.error as ValidationError).param).toBe("spans");
    await exporter.shutdown();
    expect(server.requests).toHaveLength(0);
  });

  it("loses nothing already accepted: the call made before the bad input arrives whole, feedback after it", async () => {
    const feedback = await ctx.call.react("✅");
    expect(feedback).toMatchObject({ payload: { emoji: "✅" } });
    await session.tracing.flush();
    const stored = session.double.call(acceptedCallId);
    expect(stored).toMatchObject({ starts: 1, ends: 1, start: { inputs: { arg0: 41 } }, end: { output: 42 } });
    expect(session.double.feedback.map((f) => f.payload)).toEqual([{ emoji: "✅" }]);
    const stats = session.tracing.stats();
    expect(stats.calls).toMatchObject({ dropped: 0, rejected: 0 });
    expect(session.logs.filter((l) => l.message.includes("Dropped"))).toEqual([]);
  });
});

describe("the table covers the public surface", () => {
  const covered = new Set(BAD_INPUTS.map((c) => c.target));
  const exempt = new Set(Object.keys(NO_BAD_INPUT));
  const isErrorClass = (value: unknown) =>
    typeof value === "function" && (value === Error || value.prototype instanceof Error);

  it.each([
    ["tracewire", rootExports],
    ["tracewire/otel", otelExports],
    ["tracewire/api", apiExports],
    ["tracewire/openai", openaiExports],
    ["tracewire/anthropic", anthropicExports],
    ["tracewire/ai", aiExports],
  ] as const)("every function exported by %s has bad-input cases (or a reason it has none)", (_name, mod) => {
    const missing = Object.entries(mod)
      .filter(([, value]) => typeof value === "function" && !isErrorClass(value))
      .map(([name]) => name)
      .filter((name) => !covered.has(name) && !exempt.has(name));
    expect(missing).toEqual([]);
  });

  it("every method of every client (and of the processor and Call) has bad-input cases (or a reason it has none)", () => {
    const client = { baseUrl: "http://127.0.0.1:9", env: {}, project: "acme/demo" };
    const tracing = new TracingClient(client);
    const ownMethods = (o: object) =>
      Object.getOwnPropertyNames(Object.getPrototypeOf(o)).filter((n) => n !== "constructor");
    /** TS-private helpers, visible at runtime but not public API. */
    const internal = new Set(["post", "queuePath", "objPath", "versionPath", "get"]);
    const methods: string[] = [];
    for (const [family, api] of Object.entries(tracing)) {
      if (["transport", "context", "defaultProject"].includes(family) || typeof api !== "object" || api === null)
        continue;
      for (const m of ownMethods(api)) if (!internal.has(m)) methods.push(`TracingClient.${family}.${m}`);
    }
    for (const [name, resource] of Object.entries(tracing.project("acme", "demo"))) {
      if (typeof resource !== "object" || resource === null) continue;
      for (const m of ownMethods(resource)) methods.push(`TracingClient.project().${name}.${m}`);
    }
    methods.push(...ownMethods(tracing).map((m) => `TracingClient.${m}`));
    const training = new TrainingClient(client);
    methods.push(...ownMethods(training).map((m) => `TrainingClient.${m}`));
    methods.push(...ownMethods(training.models).map((m) => `TrainingClient.models.${m}`));
    methods.push(...ownMethods(training.jobs).map((m) => `TrainingClient.jobs.${m}`));
    methods.push("TrainingClient.chat.completions.create");
    const inference = new InferenceClient(client);
    methods.push(...ownMethods(inference).map((m) => `InferenceClient.${m}`));
    methods.push(...ownMethods(inference.models).map((m) => `InferenceClient.models.${m}`));
    methods.push("InferenceClient.chat.completions.create");
    methods.push(...ownMethods(ctx?.call ?? Object.create(rootExports.Call.prototype)).map((m) => `Call.${m}`));
    methods.push(
      ...Object.getOwnPropertyNames(otelExports.TracewireSpanProcessor.prototype)
        .filter(
          (m) =>
            ![
              "constructor",
              "routeOf",
              "keeps",
              "internalError",
              "offerCall",
              "rejectCalls",
              "redacted",
              "offerSpan",
            ].includes(m),
        )
        .map((m) => `TracewireSpanProcessor.${m}`),
    );
    const missing = methods.filter((m) => !covered.has(m) && !exempt.has(m));
    expect(missing).toEqual([]);
  });
});
