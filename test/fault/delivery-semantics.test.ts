/**
 * Delivery is at-least-once with idempotent ids (call id = span id): when the service processed a batch but the
 * answer was lost (connection reset), tracewire sends it again, and the local service stores the duplicate start,
 * end and span as the same call with the same content. And both routes write well-formed UTF-8: a lone UTF-16
 * surrogate becomes U+FFFD, never a `\udxxx` escape a service decoding to UTF-8 may refuse.
 */
import { trace } from "@opentelemetry/api";
import { afterEach, expect, it, vi } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import type { CallSchema } from "../../src/api/types/calls.js";
import { callOf, init, op, type TracewireHandle } from "../../src/index.js";
import { collect, PROJECT, startService, type TestService } from "../server/helpers.js";
import { LostAnswerProxy } from "../support/lost-answer-proxy.js";
import { PATHS } from "./support.js";

let service: TestService | undefined;
let proxy: LostAnswerProxy | undefined;
let tracing: TracewireHandle | undefined;
let client: TracingClient | undefined;

afterEach(async () => {
  await tracing?.shutdown();
  await client?.close();
  await proxy?.close();
  await service?.close();
  tracing = client = proxy = service = undefined;
});

const fetchPage = op(
  async function fetchPage(url: string) {
    trace.getTracer("app-http").startActiveSpan("GET /page", (span) => {
      span.setAttribute("http.url", url);
      span.end();
    });
    return { url, status: 200 };
  },
  { parameterNames: ["url"] },
);

async function setup(options: Record<string, unknown> = {}): Promise<void> {
  service = await startService({ storage: "memory" });
  proxy = await LostAnswerProxy.start(service.url);
  tracing = init({ baseUrl: proxy.url, project: PROJECT, env: {}, scheduledDelayMillis: 10, ...options });
  client = new TracingClient({ baseUrl: service.url, project: PROJECT, env: {} });
}

async function drain(): Promise<void> {
  await vi.waitFor(
    async () => {
      await tracing!.flush();
      expect(tracing!.processor?.idle).toBe(true);
    },
    { timeout: 10_000 },
  );
}

async function traceCalls(traceId: string): Promise<CallSchema[]> {
  const calls = await collect(client!.calls.streamQuery({ filter: { trace_ids: [traceId] } }));
  return calls.sort((a, b) => (a.op_name < b.op_name ? -1 : 1)); // "GET /page", then "fetchPage"
}

/** Sends a recorded request body to the service again, as a resend would. */
async function replay(path: string, body: Buffer, headers: Record<string, string>): Promise<void> {
  const res = await fetch(`${service!.url}${path}`, { method: "POST", body, headers });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

it("an answer lost after the service processed the batch: resent, and the duplicates are harmless", async () => {
  await setup();
  proxy!.loseAnswers(PATHS.calls);
  proxy!.loseAnswers(PATHS.otlp);
  const call = callOf(await fetchPage("https://example.com"))!;
  await drain();

  // Each route sent its batch twice: the first answer was lost, after the service had stored it.
  for (const path of [PATHS.calls, PATHS.otlp]) {
    const sent = proxy!.bodies(path);
    expect(sent.map((r) => r.lost)).toEqual([true, false]);
    expect(sent[1]!.body.equals(sent[0]!.body)).toBe(true);
  }
  expect(tracing!.stats()).toMatchObject({
    calls: { sent: 2, rejected: 0, dropped: 0, queued: 0 },
    otlp: { sent: 1, rejected: 0, dropped: 0, queued: 0 },
  });
  const stored = await traceCalls(call.traceId);
  expect(stored.map((c) => [c.op_name, c.id])).toEqual([
    ["GET /page", expect.stringMatching(/^[0-9a-f]{16}$/)],
    ["fetchPage", call.id],
  ]);
  expect(stored[1]).toMatchObject({
    inputs: { url: "https://example.com" },
    output: { url: "https://example.com", status: 200 },
  });
  expect(stored[1]!.ended_at).not.toBeNull();

  // More duplicates, in the worst order: the whole batches again, then the call's start alone after its end.
  const calls = proxy!.bodies(PATHS.calls)[0]!;
  const otlp = proxy!.bodies(PATHS.otlp)[0]!;
  await replay(PATHS.calls, calls.body, { "content-type": "application/json" });
  await replay(PATHS.otlp, otlp.body, {
    "content-type": String(otlp.headers["content-type"]),
    ...(otlp.headers["content-encoding"] ? { "content-encoding": String(otlp.headers["content-encoding"]) } : {}),
    project_id: PROJECT,
  });
  const batch = JSON.parse(calls.body.toString("utf8")) as { batch: { mode: string }[] };
  const startOnly = { batch: batch.batch.filter((item) => item.mode === "start") };
  expect(startOnly.batch).toHaveLength(1);
  await replay(PATHS.calls, Buffer.from(JSON.stringify(startOnly)), { "content-type": "application/json" });
  expect(await traceCalls(call.traceId)).toEqual(stored);
});

it.each(["http/protobuf", "http/json"] as const)(
  "lone surrogates arrive as U+FFFD on both routes (OTLP %s), in well-formed UTF-8",
  async (otlpProtocol) => {
    await setup({ otlpProtocol, otlpCompression: "none" });
    const lone = "page \ud800 and \udc00 end";
    const call = callOf(await fetchPage(lone))!;
    await drain();
    const fixed = "page \ufffd and \ufffd end";

    const utf8 = new TextDecoder("utf-8", { fatal: true });
    const calls = proxy!.bodies(PATHS.calls);
    expect(calls.length).toBeGreaterThan(0);
    for (const r of calls) {
      const text = utf8.decode(r.body);
      expect(text).not.toMatch(/\\ud[89a-f]/);
      expect(text).toContain(fixed);
    }
    const stored = await traceCalls(call.traceId);
    expect(stored[1]!.inputs).toEqual({ url: fixed });
    expect(stored[1]!.output).toEqual({ url: fixed, status: 200 });
    expect(stored[0]!.attributes).toMatchObject({ http: { url: fixed } });
    if (otlpProtocol === "http/json") {
      const text = utf8.decode(proxy!.bodies(PATHS.otlp)[0]!.body);
      expect(text).not.toMatch(/\\ud[89a-f]/);
      expect(text).toContain(fixed);
    }
  },
);
