/**
 * What an evaluation sends keeps the payload promise: credential keys (`redactKeys`) are masked in the objects it
 * publishes (the Model's fields, the Evaluation's metadata, a scorer's attributes, EvaluationLogger's model), the
 * `redact` hook sees every row, output, score and summary, and `captureContent: false` sends no row content,
 * outputs or inputs — scores stay. Every request body tracewire sends passes a recording proxy in front of the local
 * service; each planted value holds `LEAK-<tag>` and must appear in none of them.
 */
import { gunzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { EvaluationLogger, evaluate } from "../../src/eval/index.js";
import { type InitOptions, init, type TracewireHandle } from "../../src/index.js";
import { type DevServer, startDevServer } from "../../src/server/index.js";
import { LostAnswerProxy } from "../support/lost-answer-proxy.js";
import { childrenOf, opName, quiet } from "./support.js";

const PROJECT = "acme/eval-secrets";
const leak = (tag: string) => `sk-LEAK-${tag}-9f8e7d`;

let service: DevServer;
let proxy: LostAnswerProxy;
let client: TracingClient;
let tracing: TracewireHandle | undefined;
const warnings: string[] = [];

beforeAll(async () => {
  service = await startDevServer({ port: 0, storage: "memory", logger: quiet });
  proxy = await LostAnswerProxy.start(service.url);
  client = new TracingClient({ baseUrl: service.url, project: PROJECT, env: {} });
});
afterEach(async () => {
  await tracing?.shutdown();
  tracing = undefined;
  proxy.requests.length = 0;
  warnings.length = 0;
});
afterAll(async () => {
  await client.close();
  await proxy.close();
  await service.close();
});

/** Tracing through the recording proxy, with these payload options. */
function start(options: Partial<InitOptions> = {}): void {
  tracing = init({
    baseUrl: proxy.url,
    project: PROJECT,
    env: {},
    scheduledDelayMillis: 20,
    logger: { warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
    ...options,
  });
}

/** The planted tags found in any body sent so far (sorted, without repeats). */
async function leaked(): Promise<string[]> {
  await tracing!.flush();
  const found = new Set<string>();
  for (const r of proxy.requests) {
    const text = (r.headers["content-encoding"] === "gzip" ? gunzipSync(r.body) : r.body).toString("utf8");
    for (const m of text.matchAll(/LEAK-(\w+)/g)) found.add(m[1]!);
  }
  return [...found].sort();
}

/** Parsed JSON bodies sent to `path`. */
function sent(path: string): Record<string, unknown>[] {
  return proxy.bodies(path).map((r) => JSON.parse(r.body.toString("utf8")) as Record<string, unknown>);
}

async function readRefs(refs: string[]): Promise<Record<string, unknown>[]> {
  return (await client.refs.readBatch({ refs })).vals as Record<string, unknown>[];
}

async function callsOf(traceId: string) {
  const calls = [];
  for await (const call of client.calls.streamQuery({ filter: { trace_ids: [traceId] } })) calls.push(call);
  return calls;
}

/** A hook that replaces the value of every `email` key, anywhere in the payload. */
function emailHook(seen: { kind: string; opName: string }[]) {
  const scrub = (value: unknown): void => {
    if (value === null || typeof value !== "object") return;
    if (!Array.isArray(value) && "email" in value) (value as Record<string, unknown>).email = "[hook]";
    for (const child of Object.values(value)) scrub(child);
  };
  return (payload: unknown, context: { kind: string; opName: string }) => {
    seen.push(context);
    scrub(payload);
  };
}

describe("credential keys in the objects an evaluation publishes", () => {
  it("masks the task object's fields, model.attributes, metadata and scorer attributes, at the top level too", async () => {
    start();
    // A task object as a user writes one: its other fields are recorded on the Model.
    const task = { apiKey: leak("taskApiKey"), temperature: 0.2, predict: async () => "a" };
    const result = await evaluate({
      name: "keyed",
      progress: false,
      dataset: [{ q: "1" }],
      task,
      model: { attributes: { token: leak("modelAttrToken"), nested: { password: leak("nestedPassword") } } },
      metadata: { client_secret: leak("metaSecret"), run: "nightly" },
      scorers: [
        function ok() {
          return true;
        },
        { name: "judge", attributes: { api_key: leak("scorerKey"), threshold: 0.5 }, score: () => 1 },
      ],
    });
    expect(await leaked()).toEqual([]);
    const [model, evaluation, judge] = await readRefs([
      result.refs.model,
      result.refs.evaluation,
      result.refs.scorers.judge!,
    ]);
    expect(model).toMatchObject({
      apiKey: "REDACTED",
      temperature: 0.2,
      token: "REDACTED",
      nested: { password: "REDACTED" },
    });
    expect(evaluation!.metadata).toEqual({ client_secret: "REDACTED", run: "nightly" });
    expect(judge).toMatchObject({ api_key: "REDACTED", threshold: 0.5 });
  });

  it("masks such a credential where the service's own error quotes it: the model call's exception, a log line", async () => {
    start();
    // The evaluation knows these are credentials (it masks them in the objects); a provider's 401 quotes them bare.
    const modelKey = `live-${leak("modelKeyQuoted")}`;
    const judgeKey = `live-${leak("judgeKeyQuoted")}`;
    const task = {
      name: "caller",
      auth: { apiKey: modelKey },
      predict(row: { q: string }) {
        if (row.q === "2") throw new Error(`401 Incorrect API key provided: ${modelKey}`);
        return "a";
      },
    };
    const result = await evaluate({
      name: "quoted",
      progress: false,
      dataset: [{ q: "1" }, { q: "2" }],
      task,
      scorers: [
        {
          name: "judge",
          attributes: { judge: { api_key: judgeKey } },
          score: () => {
            throw new Error(`401 Incorrect API key provided: ${judgeKey}`);
          },
        },
      ],
    });
    expect(result.counts.failed).toBe(1);
    expect(await leaked()).toEqual([]);
    expect(warnings.join("\n")).toMatch(/Scorer judge threw/);
    expect(warnings.join("\n")).not.toMatch(/LEAK/);
    const calls = await callsOf(result.traceId);
    expect(calls.filter((c) => c.exception).map((c) => c.exception)).toEqual(
      expect.arrayContaining([expect.stringContaining("REDACTED")]),
    );
  });

  it("masks the keys of a custom redactKeys list, at every depth", async () => {
    start({ redactKeys: ["ssn"] });
    const task = { ssn: leak("taskSsn"), predict: async () => "a" };
    const result = await evaluate({
      name: "custom-keys",
      progress: false,
      dataset: [{ q: "1" }],
      task,
      model: { attributes: { patient_ssn: leak("attrSsn"), cfg: [{ ssn: leak("deepSsn") }], apiKey: "kept" } },
      scorers: [
        function ok() {
          return true;
        },
      ],
    });
    expect(await leaked()).toEqual([]);
    const [model] = await readRefs([result.refs.model]);
    // The list replaces the defaults: `apiKey` is recorded, as for any other payload.
    expect(model).toMatchObject({
      ssn: "REDACTED",
      patient_ssn: "REDACTED",
      cfg: [{ ssn: "REDACTED" }],
      apiKey: "kept",
    });
  });

  it("masks EvaluationLogger's model fields", async () => {
    start();
    const logger = new EvaluationLogger({ name: "keyed-loop", model: { name: "Bot", secret: leak("loggerModel") } });
    logger.logExample({ q: "1" }, "a", { ok: true });
    const logged = await logger.logSummary();
    expect(await leaked()).toEqual([]);
    const root = (await client.calls.read({ id: logged.callId })).call!;
    const [model] = await readRefs([root.inputs.model as string]);
    expect(model).toMatchObject({ name: "Bot", secret: "REDACTED" });
  });
});

describe("custom redactKeys and the redact hook", () => {
  it("apply to the dataset rows, the Model object, the scores and their feedback", async () => {
    const seen: { kind: string; opName: string }[] = [];
    start({ redactKeys: ["api_key", "ssn"], redact: emailHook(seen) });
    const scoreEmail = leak("scoreEmail");
    const result = await evaluate({
      name: "hooked",
      progress: false,
      dataset: [{ q: "1", email: leak("rowEmail"), ssn: leak("rowSsn") }],
      task: async function answer() {
        return "a";
      },
      model: { attributes: { cfg: { ssn: leak("modelNestedSsn") }, owner: { email: leak("modelEmail") } } },
      scorers: [
        function s() {
          return { ok: true, email: scoreEmail } as never;
        },
      ],
    });
    expect(await leaked()).toEqual([]);
    const [row, model] = await readRefs([result.rows[0]!.rowRef, result.refs.model]);
    expect(row).toEqual({ q: "1", email: "[hook]", ssn: "REDACTED" });
    expect(model).toMatchObject({ cfg: { ssn: "REDACTED" }, owner: { email: "[hook]" } });
    const calls = await callsOf(result.traceId);
    const scorer = calls.find((c) => opName(c) === "s")!;
    expect(scorer.output).toEqual({ ok: true, email: "[hook]" });
    const feedback = sent("/feedback/batch/create").flatMap((b) => b.batch as { payload: unknown }[]);
    expect(feedback.map((f) => f.payload)).toEqual([{ output: { ok: true, email: "[hook]" } }]);
    expect(seen).toContainEqual({ kind: "output", opName: "s" });
  });

  it("apply to EvaluationLogger's inputs, outputs, scores and summary", async () => {
    const seen: { kind: string; opName: string }[] = [];
    start({ redactKeys: ["api_key", "ssn"], redact: emailHook(seen) });
    const logger = new EvaluationLogger({ name: "hooked-loop", model: { name: "Bot", ssn: leak("loggerSsn") } });
    const prediction = logger.logPrediction({ q: "1", email: leak("loggedInput") }, { email: leak("loggedOutput") });
    prediction.logScore("s", { ok: true, email: leak("loggedScore") } as never).finish();
    const logged = await logger.logSummary({ email: leak("loggedSummary"), note: "kept" });
    expect(await leaked()).toEqual([]);
    const root = (await client.calls.read({ id: logged.callId })).call!;
    expect(root.output).toMatchObject({ output: { email: "[hook]", note: "kept" } });
    const calls = await callsOf(root.trace_id);
    const [pas] = childrenOf(calls, root).filter((c) => opName(c) === "Evaluation.predict_and_score");
    const [row] = await readRefs([pas!.inputs.example as string]);
    expect(row).toEqual({ q: "1", email: "[hook]" });
    expect(pas!.output).toMatchObject({ output: { email: "[hook]" }, scores: { s: { ok: true, email: "[hook]" } } });
    const model = childrenOf(calls, pas!).find((c) => opName(c) === "Bot.predict")!;
    expect(model.inputs).toMatchObject({ q: "1", email: "[hook]" });
  });

  it("fails closed: a hook that throws withholds the rows and objects, and the evaluation still runs", async () => {
    start({
      redact: () => {
        throw new TypeError("no");
      },
    });
    const result = await evaluate({
      name: "hook-throws",
      progress: false,
      dataset: [{ q: leak("rowWithheld") }, { q: leak("rowWithheld2") }],
      task: async function answer() {
        return leak("outputWithheld");
      },
      model: { attributes: { note: leak("attrWithheld") } },
      scorers: [
        function s() {
          return 1;
        },
      ],
    });
    expect(result.counts.ok).toBe(2);
    expect(await leaked()).toEqual([]);
    // The rows stay apart (one digest each), so the evaluation's rows are still told apart.
    expect(result.rows[0]!.rowDigest).not.toBe(result.rows[1]!.rowDigest);
    expect(warnings.some((w) => w.includes("redact hook threw a TypeError"))).toBe(true);
  });
});

describe("captureContent: false", () => {
  it("sends no row content, outputs or inputs; scores (numbers and booleans) are kept", async () => {
    start({ captureContent: false });
    const reason = leak("scoreReason");
    const result = await evaluate({
      name: "no-content",
      progress: false,
      dataset: [{ q: leak("rowA") }, { q: leak("rowB") }],
      task: async function answer(row: { q: string }) {
        return { text: `${row.q}!`, length: row.q.length };
      },
      scorers: [
        function graded() {
          return { ok: true, score: 0.5, reason } as never;
        },
      ],
    });
    expect(await leaked()).toEqual([]);
    expect(result.rows[0]!.rowDigest).not.toBe(result.rows[1]!.rowDigest);
    const rows = await readRefs(result.rows.map((r) => r.rowRef));
    expect(rows).toEqual([
      { index: 0, content: "[not captured: captureContent is false]" },
      { index: 1, content: "[not captured: captureContent is false]" },
    ]);
    const calls = await callsOf(result.traceId);
    const root = calls.find((c) => c.id === result.callId)!;
    // The scores' summary is kept; the outputs' (the mean of their `length`) is content, and left out.
    expect(root.output).toMatchObject({ graded: { ok: { true_count: 2 }, score: { mean: 0.5 } } });
    expect(root.output).not.toHaveProperty("output");
    const pas = calls.filter((c) => opName(c) === "Evaluation.predict_and_score");
    expect(pas.map((c) => c.output)).toEqual([
      { output: null, scores: { graded: { ok: true, score: 0.5 } }, model_latency: expect.any(Number) },
      { output: null, scores: { graded: { ok: true, score: 0.5 } }, model_latency: expect.any(Number) },
    ]);
    const feedback = sent("/feedback/batch/create").flatMap((b) => b.batch as { payload: unknown }[]);
    expect(feedback.map((f) => f.payload)).toEqual([
      { output: { ok: true, score: 0.5 } },
      { output: { ok: true, score: 0.5 } },
    ]);
  });

  it("EvaluationLogger sends no inputs, outputs or summary of its own; scores are kept", async () => {
    start({ captureContent: false });
    const logger = new EvaluationLogger({ name: "no-content-loop", model: "Bot" });
    logger.logExample({ q: leak("loggedInput") }, leak("loggedOutput"), { ok: true, n: 2 } as never);
    logger.logExample({ q: leak("loggedInput2") }, leak("loggedOutput2"), { ok: false, n: 4 } as never);
    const logged = await logger.logSummary({ note: leak("loggedSummary") });
    expect(await leaked()).toEqual([]);
    const scores = { ok: { true_count: 1, true_fraction: 0.5 }, n: { mean: 3 } };
    // Yours to read in the process; the service gets the scores' summary alone.
    expect(logged.summary).toEqual({ ...scores, output: { note: leak("loggedSummary") } });
    const root = (await client.calls.read({ id: logged.callId })).call!;
    expect(root.output).toEqual(scores);
  });
});
