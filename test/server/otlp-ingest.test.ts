/**
 * `/otel/v1/traces` of the local service, fed by an encoder independent of tracewire's (protobufjs with the
 * hand-written schema in test/support/otlp.proto) and by hand-written OTLP/JSON: every AnyValue kind decodes,
 * GenAI / OpenInference / wandb attributes map to call fields (DESIGN §2.1, the service's span → call mapping),
 * bad spans come back in `partial_success` while the rest are stored, and the project can come from the resource.
 */
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import protobuf from "protobufjs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ndjson, PROJECT, send, startService, type TestService } from "./helpers.js";

const root = protobuf.loadSync(fileURLToPath(new URL("../support/otlp.proto", import.meta.url)));
const Request = root.lookupType("tracewire.test.otlp.ExportTraceServiceRequest");
const Response = root.lookupType("tracewire.test.otlp.ExportTraceServiceResponse");

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const ROOT = "b7ad6b7169203331";
const CHILD = "00f067aa0ba902b7";
const T0 = 1_767_607_200_000_000_000n; // 2026-01-05T10:00:00Z in ns

const str = (v: string) => ({ stringValue: v });
const kv = (key: string, value: object) => ({ key, value });
const hex = (h: string) => Buffer.from(h, "hex");
const nanos = (ms: number) => (T0 + BigInt(ms) * 1_000_000n).toString();

let service: TestService;
beforeAll(async () => {
  service = await startService({ storage: "memory" });
});
afterAll(() => service.close());

async function postProtobuf(message: object, headers: Record<string, string> = { project_id: PROJECT }) {
  const body = gzipSync(Request.encode(Request.fromObject(message)).finish());
  const res = await fetch(`${service.url}/otel/v1/traces`, {
    method: "POST",
    headers: { "content-type": "application/x-protobuf", "content-encoding": "gzip", ...headers },
    body,
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const type = res.headers.get("content-type");
  const response =
    type === "application/x-protobuf" ? Response.toObject(Response.decode(bytes), { longs: Number }) : {};
  return { status: res.status, type, response };
}

const calls = async (project = PROJECT) =>
  ndjson((await send(service.url, "/calls/stream_query", { project_id: project })).text);

it("maps protobuf spans to calls and reports refused spans in partial_success", async () => {
  const span = (spanId: Buffer, name: string, attributes: object[], extra: object = {}) => ({
    traceId: hex(TRACE),
    spanId,
    name,
    kind: 3,
    startTimeUnixNano: nanos(0),
    endTimeUnixNano: nanos(1500),
    attributes,
    ...extra,
  });
  const chat = span(hex(ROOT), "chat gpt-4o", [
    kv("gen_ai.request.model", str("gpt-4o")),
    kv("gen_ai.request.temperature", { doubleValue: 0.5 }),
    kv("gen_ai.usage.input_tokens", { intValue: 30 }),
    kv("gen_ai.usage.output_tokens", { intValue: 7 }),
    kv("gen_ai.input.messages", str(JSON.stringify([{ role: "user", parts: [{ type: "text", content: "hi" }] }]))),
    kv(
      "gen_ai.output.messages",
      str(JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "hello" }] }])),
    ),
    kv("gen_ai.conversation.id", str("conv-9")),
  ]);
  const tool = span(
    hex(CHILD),
    "tool lookup",
    [
      kv("input.value", str(JSON.stringify({ city: "Lisbon" }))),
      kv("output.value", str("sunny")),
      kv("wandb.display_name", str("lookup: Lisbon")),
      kv("wandb.attributes.team", str("search")),
      kv("wandb.attributes.tags", { arrayValue: { values: [str("a"), { intValue: -3 }, { boolValue: true }] } }),
      kv("wandb.attributes.meta", { kvlistValue: { values: [kv("blob", { bytesValue: Buffer.from([1, 2]) })] } }),
    ],
    { parentSpanId: hex(ROOT), status: { code: 2, message: "lookup failed" } },
  );
  const badId = span(Buffer.from("0102", "hex"), "bad id", []);
  const conflict = span(hex("1111111111111111"), "conflict", [kv("a", str("x")), kv("a.b", str("y"))]);
  const res = await postProtobuf({
    resourceSpans: [
      {
        resource: { attributes: [kv("service.name", str("svc"))] },
        scopeSpans: [{ scope: { name: "lib" }, spans: [chat, tool, badId, conflict] }],
      },
    ],
  });
  expect(res.status).toBe(200);
  expect(res.type).toBe("application/x-protobuf");
  expect(res.response.partialSuccess).toMatchObject({ rejectedSpans: 2 });
  const message = String((res.response.partialSuccess as { errorMessage: string }).errorMessage);
  expect(message).toContain(
    "Rejected span (name='bad id' trace_id='0af7651916cd43dd8448eb211c80319c' span_id='0102'): invalid span id",
  );
  expect(message).toContain("name='conflict'");

  const stored = await calls();
  expect(stored.map((c) => c.id)).toEqual([ROOT, CHILD]);
  const [chatCall, toolCall] = stored;
  expect(chatCall).toMatchObject({
    trace_id: TRACE,
    parent_id: null,
    op_name: "chat gpt-4o",
    started_at: "2026-01-05T10:00:00.000Z",
    ended_at: "2026-01-05T10:00:01.500Z",
    thread_id: "conv-9",
    turn_id: ROOT,
    inputs: { "gen_ai.input.messages": [{ role: "user", parts: [{ type: "text", content: "hi" }] }] },
    output: [{ role: "assistant", parts: [{ type: "text", content: "hello" }] }],
    attributes: { model: "gpt-4o", model_parameters: { model: "gpt-4o", temperature: 0.5 } },
    summary: {
      usage: { "gpt-4o": { input_tokens: 30, output_tokens: 7, total_tokens: 37, requests: 1 } },
      // Its child (the tool call) failed: the service reports that on the parent.
      weave: { status: "descendant_error", latency_ms: 1500 },
    },
  });
  expect(toolCall).toMatchObject({
    parent_id: ROOT,
    display_name: "lookup: Lisbon",
    inputs: { city: "Lisbon" },
    output: "sunny",
    exception: "lookup failed",
    attributes: { team: "search", tags: ["a", -3, true], meta: { blob: "AQI=" } },
    summary: { weave: { status: "error" } },
  });
});

it("takes OTLP/JSON with the project in resource attributes, and an all-accepted answer is empty", async () => {
  const body = {
    resourceSpans: [
      {
        resource: { attributes: [kv("wandb.entity", str("team")), kv("wandb.project", str("json"))] },
        scopeSpans: [
          {
            spans: [
              {
                traceId: TRACE.toUpperCase(),
                spanId: "aaaaaaaaaaaaaaaa",
                name: "GET /users",
                startTimeUnixNano: 1_767_607_200_000_000_000, // a JSON number (exact here) …
                endTimeUnixNano: nanos(250), // … and the canonical decimal string
                attributes: [
                  kv("http.request.method", str("GET")),
                  kv("http.response.status_code", { intValue: "200" }),
                ],
                status: {},
              },
            ],
          },
        ],
      },
    ],
  };
  const res = await send(service.url, "/otel/v1/traces", body);
  expect(res).toMatchObject({ status: 200, json: {} });
  const [call] = await calls("team/json");
  expect(call).toMatchObject({
    id: "aaaaaaaaaaaaaaaa",
    trace_id: TRACE,
    op_name: "GET /users",
    project_id: "team/json",
    attributes: { http: { request: { method: "GET" }, response: { status_code: 200 } } },
    summary: { weave: { latency_ms: 250 } },
  });
});

it("shortens long op and display names as the service does: cut at a delimiter, op names tagged with a sha256 prefix", async () => {
  // Expected names computed once with CPython from the service's rule (its OTLP ingestion: a name of 128 code points
  // or more is cut by shorten_name at a delimiter, and tagged ":" + sha256(name).hexdigest()[:4]).
  const display = "fix the flaky test / ".repeat(60);
  const cases: [string, string][] = [
    ["a".repeat(200), `${"a".repeat(123)}:c2a9`],
    ["x".repeat(128), "x".repeat(128)],
    ["y".repeat(129), `${"y".repeat(123)}:3515`],
    [
      "openai.chat.completions.create ".repeat(8).trim(),
      "openai.chat.completions.create openai.chat.completions.create openai.chat.completions.create openai.chat.completions:1ff5",
    ],
    [
      `step/${"ab, cd; ef|gh ij/kl?mn.op ".repeat(10)}`,
      "step/ab, cd; ef|gh ij/kl?mn.op ab, cd; ef|gh ij/kl?mn.op ab, cd; ef|gh ij/kl?mn.op ab, cd; ef|gh ij/kl?mn.op ab, cd; ef|gh:e02e",
    ],
    ["\u{1f600}".repeat(130), `${"\u{1f600}".repeat(123)}:3568`],
    [`module.${"z".repeat(150)}`, "module:c53c"],
  ];
  const spans = cases.map(([name], i) => ({
    traceId: TRACE,
    spanId: `c0ffee00000000${String(i).padStart(2, "0")}`,
    name,
    startTimeUnixNano: nanos(0),
    endTimeUnixNano: nanos(1),
    attributes: i === 0 ? [kv("wandb.display_name", str(display))] : [],
  }));
  const res = await send(service.url, "/otel/v1/traces", {
    resourceSpans: [
      {
        resource: { attributes: [kv("wandb.entity", str("team")), kv("wandb.project", str("names"))] },
        scopeSpans: [{ spans }],
      },
    ],
  });
  expect(res).toMatchObject({ status: 200, json: {} });
  const byId = new Map((await calls("team/names")).map((c) => [c.id, c]));
  cases.forEach(([, expected], i) => {
    expect(byId.get(`c0ffee00000000${String(i).padStart(2, "0")}`)?.op_name, `case ${i}`).toBe(expected);
  });
  expect(byId.get("c0ffee0000000000")?.display_name).toBe(`${display.slice(0, 1016)}...`);
});

it("refuses a request without a project, an unreadable body and an unknown content type", async () => {
  const span = {
    traceId: hex(TRACE),
    spanId: hex("cccccccccccccccc"),
    name: "x",
    startTimeUnixNano: nanos(0),
    endTimeUnixNano: nanos(1),
  };
  const noProject = await postProtobuf({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] }, {});
  expect(noProject.status).toBe(400);
  const garbage = await fetch(`${service.url}/otel/v1/traces`, {
    method: "POST",
    headers: { "content-type": "application/x-protobuf", project_id: PROJECT },
    body: Buffer.from([0x0a, 0xff, 0xff]),
  });
  expect(garbage.status).toBe(400);
  expect(await garbage.json()).toEqual({ reason: expect.stringContaining("Invalid OTLP request") });
  const text = await fetch(`${service.url}/otel/v1/traces`, {
    method: "POST",
    headers: { "content-type": "text/plain" },
    body: "x",
  });
  expect(text.status).toBe(415);
});

it("refuses a span whose time no date can hold in partial_success, and stores the others", async () => {
  const span = (spanId: string, name: string, startTimeUnixNano: string) => ({
    traceId: TRACE,
    spanId,
    name,
    startTimeUnixNano,
    endTimeUnixNano: nanos(5),
  });
  const far = "99999999999999999999999999"; // OTLP/JSON carries times as decimal strings of any length
  const res = await send(
    service.url,
    "/otel/v1/traces",
    {
      resourceSpans: [
        { scopeSpans: [{ spans: [span("dddddddddddddddd", "kept", nanos(0)), span("eeeeeeeeeeeeeeee", "far", far)] }] },
      ],
    },
    { headers: { project_id: PROJECT } },
  );
  expect(res.status).toBe(200);
  expect(res.json).toEqual({
    partialSuccess: {
      rejectedSpans: "1",
      errorMessage: `Rejected span (name='far' trace_id='${TRACE}' span_id='eeeeeeeeeeeeeeee'): start time ${far} ns is beyond the year 275760`,
    },
  });
  const stored = await calls();
  expect(stored.find((c) => c.id === "dddddddddddddddd")).toMatchObject({ op_name: "kept" });
  expect(stored.find((c) => c.id === "eeeeeeeeeeeeeeee")).toBeUndefined();
});
