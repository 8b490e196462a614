/**
 * What an evaluation sends keeps the payload promise: credential keys (`redactKeys`) are masked in the objects it
 * publishes (the Model's fields, the Evaluation's metadata, a scorer's attributes, EvaluationLogger's model). Every
 * request body tracewire sends passes a recording proxy in front of the local service; each planted value holds
 * `LEAK-<tag>` and must appear in none of them.
 */
import { gunzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { EvaluationLogger, evaluate } from "../../src/eval/index.js";
import { type InitOptions, init, type TracewireHandle } from "../../src/index.js";
import { type DevServer, startDevServer } from "../../src/server/index.js";
import { LostAnswerProxy } from "../support/lost-answer-proxy.js";
import { quiet } from "./support.js";

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

async function readRefs(refs: string[]): Promise<Record<string, unknown>[]> {
  return (await client.refs.readBatch({ refs })).vals as Record<string, unknown>[];
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
