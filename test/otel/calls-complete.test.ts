/**
 * Projects that take complete calls only. The hosted service answers v1 call writes to a project holding calls
 * written as complete records (the vendor's SDKs' default) with a 400 `CALLS_COMPLETE_MODE_REQUIRED`; tracewire then
 * sends each finished call as one record (`/v2/{entity}/{project}/calls/complete`) and calls still running when their
 * batch goes through `/v2/{entity}/{project}/call/start` and `/call/end`, losing nothing and sending nothing twice.
 * Against the strict double (the wire, the failures) and against `tracewire dev` (what is stored, read back).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CallSchema, TracingClient } from "../../src/api/index.js";
import { getCurrentCall, init, op, type TracewireHandle } from "../../src/index.js";
import { type DevServer, startDevServer } from "../../src/server/index.js";
import { expectDeliveredOnce, recordingLogger, setupTracedDouble } from "./helpers.js";

const V2 = "/v2/acme/demo";

describe("against a service that takes complete calls only", () => {
  const ctx = setupTracedDouble({ scheduledDelayMillis: 60_000 });

  const child = op(function child(n: number) {
    return n * 2;
  });
  const parent = op(async function parent(n: number) {
    return child(n) + child(n + 1);
  });
  const broken = op(function broken() {
    throw new Error("no luck");
  });

  it("switches once, resends the refused batch as one record per call, and keeps every field", async () => {
    ctx.double.completeOnly = true;
    const { lines, logger } = recordingLogger();
    const tracing = ctx.start({ logger });
    expect(await parent(1)).toBe(2 + 4);
    expect(() => broken()).toThrow("no luck");
    await tracing.flush();

    // The v1 batch was refused once; the same records then went as complete records, in one request.
    expect(ctx.double.statuses("/call/upsert_batch")).toEqual([400]);
    expect(ctx.double.completeBatches).toEqual([4]);
    const [p] = ctx.double.callsNamed("parent");
    const children = ctx.double.callsNamed("child");
    const [b] = ctx.double.callsNamed("broken");
    for (const call of [p!, ...children, b!]) expectDeliveredOnce(ctx.double, call.start!.id as string);
    expect(children.map((c) => c.start!.parent_id)).toEqual([p!.start!.id, p!.start!.id]);
    expect(children.map((c) => c.start!.inputs)).toEqual([{ arg0: 1 }, { arg0: 2 }]);
    expect(children.map((c) => c.end!.output)).toEqual([2, 4]);
    expect(p!.end!.output).toBe(6);
    expect(p!.start!.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(b!.end!.exception).toMatch(/no luck/);
    expect(Date.parse(p!.end!.ended_at as string)).toBeGreaterThanOrEqual(Date.parse(p!.start!.started_at as string));
    expect(tracing.stats().calls).toMatchObject({ sent: 8, rejected: 0, dropped: 0, queued: 0 });

    // Later batches go the new way at once: no v1 request is tried again.
    await parent(5);
    await tracing.flush();
    expect(ctx.double.statuses("/call/upsert_batch")).toEqual([400]);
    expect(ctx.double.completeBatches).toEqual([4, 3]);
    expect(tracing.stats().calls).toMatchObject({ sent: 14, rejected: 0, dropped: 0, queued: 0 });
    const said = lines.warn.filter((line) => line.includes("CALLS_COMPLETE_MODE_REQUIRED"));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/acme\/demo.*\/calls\/complete/);
    expect(lines.error).toEqual([]);
  });

  it("a call running when its batch goes starts and ends alone, with its feedback in between", async () => {
    ctx.double.completeOnly = true;
    const tracing = ctx.start({ logger: recordingLogger().logger });
    let id = "";
    const long = op(async function long() {
      id = getCurrentCall()!.id;
      await tracing.flush(); // the start goes while the call runs
      await getCurrentCall()!.react("👍");
      return "done";
    });
    await long();
    await tracing.flush();

    expect(ctx.double.statuses(`${V2}/call/start`)).toEqual([200]);
    expect(ctx.double.statuses(`${V2}/call/end`)).toEqual([200]);
    expect(ctx.double.completeBatches).toEqual([]);
    expectDeliveredOnce(ctx.double, id);
    const call = ctx.double.call(id);
    const [feedback] = ctx.double.feedback;
    expect(feedback!._callStartedBefore).toBe(true);
    expect(call.startSeq!).toBeLessThan(feedback!._seq as number);
    expect(call.end!.output).toBe("done");
    expect(tracing.stats().calls).toMatchObject({ sent: 3, rejected: 0, dropped: 0, queued: 0 });
  });

  it("a retry after a failure halfway sends only what did not go: no call twice", async () => {
    ctx.double.completeOnly = true;
    const tracing = ctx.start({ logger: recordingLogger().logger });
    // Enough 503s to outlast the transport's own attempts: the queue retries the batch later.
    ctx.double.fail(`${V2}/call/start`, ...Array(3).fill({ status: 503 }));
    let running = "";
    let release = () => {};
    const slow = op(async function slow() {
      running = getCurrentCall()!.id;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    const pending = slow();
    await parent(1); // a finished pair in the same batch as the running call's start
    // The pairs go; the start fails, and the queue's retry (which the flush waits for) sends only the start.
    await tracing.flush();
    expect(ctx.double.completeBatches).toEqual([3]);
    expect(ctx.double.statuses(`${V2}/call/start`)).toEqual([503, 503, 503, 200]);
    expect(ctx.double.call(running).starts).toBe(1);

    release();
    await pending;
    await tracing.flush();
    for (const call of ctx.double.callsNamed("parent").concat(ctx.double.callsNamed("child")))
      expectDeliveredOnce(ctx.double, call.start!.id as string);
    expectDeliveredOnce(ctx.double, running);
    expect(ctx.double.completeBatches).toEqual([3]); // the pairs were not sent again with the retry
    expect(tracing.stats().calls).toMatchObject({ sent: 8, rejected: 0, dropped: 0, queued: 0 });
    expect(tracing.stats().calls.retries).toBeGreaterThanOrEqual(1);
  });

  it("an invalid call is refused alone; the calls around it go", async () => {
    ctx.double.completeOnly = true;
    ctx.double.rejectOpName = "poison";
    const tracing = ctx.start({ logger: recordingLogger().logger });
    const poison = op(function poison() {
      return 0;
    });
    child(1);
    poison();
    child(2);
    await tracing.flush();
    expect(ctx.double.callsNamed("child").map((c) => c.end!.output)).toEqual([2, 4]);
    expect(ctx.double.callsNamed("poison")).toEqual([]);
    expect(tracing.stats().calls).toMatchObject({ sent: 4, rejected: 2, dropped: 0, queued: 0 });
  });
});

describe("tracewire dev, a project written by the vendor's SDK", () => {
  const KEY = "tw-local-key-0123456789abcdef";
  const PROJECT = "acme/complete";
  let service: DevServer;
  let tracing: TracewireHandle;
  let reader: TracingClient;
  const post = (path: string, body: unknown) =>
    fetch(`${service.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    service = await startDevServer({ port: 0, storage: "memory", apiKey: KEY, logger: { warn() {}, error() {} } });
    reader = new TracingClient({ baseUrl: service.url, apiKey: KEY, project: PROJECT, env: {} });
  });
  afterAll(async () => {
    await tracing?.shutdown();
    await service.close();
  });

  it("refuses v1 writes once the project holds complete calls, and stores tracewire's calls all the same", async () => {
    // What the vendor's SDK sends by default: one complete record per call.
    const vendorCall = {
      project_id: PROJECT,
      id: "0197aaaa-0000-7000-8000-000000000001",
      trace_id: "0197aaaa-0000-7000-8000-000000000000",
      op_name: "weave:///acme/complete/op/summarize:abc",
      started_at: "2026-11-26T12:00:00.000Z",
      ended_at: "2026-11-26T12:00:01.250Z",
      attributes: {},
      inputs: { text: "hello" },
      output: "hi",
      summary: {},
    };
    await expect(reader.project("acme", "complete").calls.complete({ batch: [vendorCall] })).resolves.toEqual({});
    const v1 = await post("/call/upsert_batch", {
      batch: [{ mode: "start", req: { start: { ...vendorCall, id: "x", ended_at: undefined } } }],
    });
    expect(v1.status).toBe(400);
    expect(await v1.json()).toMatchObject({ error_code: "CALLS_COMPLETE_MODE_REQUIRED" });

    tracing = init({
      baseUrl: service.url,
      apiKey: KEY,
      project: PROJECT,
      env: {},
      scheduledDelayMillis: 10,
      logger: { warn() {}, error() {} },
    });
    const traced = op(async function answer(question: string) {
      return { text: `${question}!`, id: getCurrentCall()!.id };
    });
    const { id } = await traced("why");
    await tracing.flush();

    const stored: CallSchema[] = [];
    for await (const call of reader.calls.streamQuery({})) stored.push(call);
    expect(stored.map((c) => c.id).sort()).toEqual([vendorCall.id, id].sort());
    const mine = stored.find((c) => c.id === id)!;
    expect(mine).toMatchObject({ op_name: "answer", inputs: { arg0: "why" }, output: { text: "why!", id } });
    expect(mine.ended_at).toBeTruthy();
    expect(tracing.stats().calls).toMatchObject({ sent: 2, rejected: 0, dropped: 0 });
  });
});
