/**
 * The exit check of a span's own attributes on the OTLP route is made by the encoders as they write them, with each
 * key's verdict and last value cached (wire/attribute-cache.ts): what reaches the service must be exactly what the
 * check of every attribute of every span would give — for a value seen for the first time, for the same value again
 * (written from the cached pair), after it changed, and when two processors with different `redactKeys` share the
 * encoders' caches in one process. Decoded field by field, protobuf and JSON.
 */
import { SpanKind } from "@opentelemetry/api";
import { type Resource, resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TracewireSpanProcessor } from "../../src/otel-entry.js";
import { allSpans, decodeTraceRequest } from "../support/otlp.js";
import { TracingDouble } from "../support/tracing-double.js";
import { PROJECT } from "./helpers.js";

const SECRET = "s3cr3t-0123456789";
const PASSWORD_URL = `https://svc:${SECRET}@example.com/v1/chat`;
const MASKED_URL = "https://svc:REDACTED@example.com/v1/chat";
const OTHER_PASSWORD_URL = `postgres://app:${SECRET}x@db.internal:5432/main`;
const OTHER_MASKED_URL = "postgres://app:REDACTED@db.internal:5432/main";
const RESOURCE_URL = `https://svc:${SECRET}@resource.example.com/`;
const RESOURCE_MASKED = "https://svc:REDACTED@resource.example.com/";

let double: TracingDouble;
const providers: BasicTracerProvider[] = [];

beforeEach(async () => {
  double = await TracingDouble.start();
});
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.shutdown()));
  await double.close();
});

function tracerWith(protocol: "http/protobuf" | "http/json", redactKeys?: string[], resource?: Resource) {
  const processor = new TracewireSpanProcessor({
    baseUrl: double.url,
    project: PROJECT,
    env: {},
    export: "otlp",
    otlpProtocol: protocol,
    exitHooks: false,
    scheduledDelayMillis: 60_000,
    ...(redactKeys ? { redactKeys } : {}),
  });
  const provider = new BasicTracerProvider({ spanProcessors: [processor], ...(resource ? { resource } : {}) });
  providers.push(provider);
  return { tracer: provider.getTracer("exit-check"), processor };
}

/** Every span the double received by OTLP, by name, with its attributes. */
function received(): Map<string, Record<string, unknown>> {
  const spans = double.otlpRequests.flatMap((r) =>
    allSpans(decodeTraceRequest(r.body, r.headers["content-type"] ?? "")),
  );
  return new Map(spans.map((s) => [s.name, s.attributes]));
}

describe.each(["http/protobuf", "http/json"] as const)("span attributes leave the process checked (%s)", (protocol) => {
  it("the same values again, changed values, and a credential key whatever its value", async () => {
    const { tracer, processor } = tracerWith(protocol);
    const sent: Array<[string, Record<string, string | string[] | number>]> = [
      ["first", { "url.full": PASSWORD_URL, "http.request.header.authorization": [`Bearer ${SECRET}`], n: 1 }],
      // Repeats: the second is written from the cached pair, built on the first repeat.
      ["again", { "url.full": PASSWORD_URL, "http.request.header.authorization": [`Bearer ${SECRET}`], n: 1 }],
      ["again2", { "url.full": PASSWORD_URL, "http.request.header.authorization": [`Bearer ${SECRET}`], n: 1 }],
      // A new value under a credential key is masked as well; a URL without a password is recorded as it is.
      ["changed", { "url.full": "https://example.com/v1/chat", "http.request.header.authorization": "other", n: 2 }],
      ["changed2", { "url.full": "https://example.com/v1/chat", "http.request.header.authorization": "other", n: 2 }],
      ["other", { "url.full": OTHER_PASSWORD_URL, "http.request.header.authorization": [SECRET], n: 3 }],
    ];
    for (const [name, attributes] of sent) tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }).end();
    await processor.forceFlush();

    const spans = received();
    const expected = (url: string, n: number) => ({
      "url.full": url,
      "http.request.header.authorization": "REDACTED",
      n,
    });
    expect(spans.get("first")).toEqual(expected(MASKED_URL, 1));
    expect(spans.get("again")).toEqual(expected(MASKED_URL, 1));
    expect(spans.get("again2")).toEqual(expected(MASKED_URL, 1));
    expect(spans.get("changed")).toEqual(expected("https://example.com/v1/chat", 2));
    expect(spans.get("changed2")).toEqual(expected("https://example.com/v1/chat", 2));
    expect(spans.get("other")).toEqual(expected(OTHER_MASKED_URL, 3));
    expect(double.wireText()).not.toContain(SECRET);
  });

  it("two processors with different redactKeys in one process each write under their own verdict", async () => {
    const strict = tracerWith(protocol, ["x-tenant", "api_key"]);
    const open = tracerWith(protocol, []);
    const attributes = { "x-tenant": "acme", api_key: SECRET, "url.full": PASSWORD_URL };
    for (let i = 0; i < 3; i++) {
      strict.tracer.startSpan(`strict-${i}`, { attributes }).end();
      open.tracer.startSpan(`open-${i}`, { attributes }).end();
    }
    await Promise.all([strict.processor.forceFlush(), open.processor.forceFlush()]);

    const spans = received();
    for (let i = 0; i < 3; i++) {
      // A list of one's own replaces the defaults.
      expect(spans.get(`strict-${i}`)).toEqual({ "x-tenant": "REDACTED", api_key: "REDACTED", "url.full": MASKED_URL });
      // [] turns key redaction off; a URL's password is still masked.
      expect(spans.get(`open-${i}`)).toEqual({ "x-tenant": "acme", api_key: SECRET, "url.full": MASKED_URL });
    }
  });

  it("a URL's credential query parameters are masked, first seen and repeated, under the processor's list", async () => {
    const strict = tracerWith(protocol);
    const own = tracerWith(protocol, ["tenant"]);
    const url = `https://api.example.com/v1?tenant=acme&api_key=${SECRET}&key=${SECRET}g`;
    for (let i = 0; i < 3; i++) {
      strict.tracer.startSpan(`query-${i}`, { attributes: { "url.full": url } }).end();
      own.tracer.startSpan(`own-query-${i}`, { attributes: { "url.full": url } }).end();
    }
    await Promise.all([strict.processor.forceFlush(), own.processor.forceFlush()]);
    const spans = received();
    for (let i = 0; i < 3; i++) {
      expect(spans.get(`query-${i}`)).toEqual({
        "url.full": "https://api.example.com/v1?tenant=acme&api_key=REDACTED&key=REDACTED",
      });
      expect(spans.get(`own-query-${i}`)).toEqual({
        "url.full": `https://api.example.com/v1?tenant=REDACTED&api_key=${SECRET}&key=REDACTED`,
      });
    }
  });

  it("a private key block is masked whatever key it is under, first seen and repeated", async () => {
    const { tracer, processor } = tracerWith(protocol);
    const key = `-----BEGIN PRIVATE KEY-----\n${SECRET}pem\n-----END PRIVATE KEY-----\n`;
    for (const name of ["pem", "pem2", "pem3"])
      tracer.startSpan(name, { attributes: { "db.statement": `INSERT INTO keys VALUES ('${key}')` } }).end();
    await processor.forceFlush();
    const spans = received();
    for (const name of ["pem", "pem2", "pem3"])
      expect(spans.get(name)).toEqual({ "db.statement": "INSERT INTO keys VALUES ('REDACTED\n')" });
    expect(double.wireText()).not.toContain(SECRET);
  });

  it("a key the resource also carries (written unchecked) is checked again on the next span", async () => {
    // The resource is the app's own description of itself and is written as it is; the same key and value on a span
    // must not reuse what was cached for the resource. (A value no other test uses: the encoders' caches live as long
    // as the process.)
    const { tracer, processor } = tracerWith(protocol, undefined, resourceFromAttributes({ "url.full": RESOURCE_URL }));
    tracer.startSpan("before", { attributes: { "url.full": RESOURCE_URL } }).end();
    await processor.forceFlush();
    for (const name of ["after", "after2"]) tracer.startSpan(name, { attributes: { "url.full": RESOURCE_URL } }).end();
    await processor.forceFlush();
    const spans = received();
    for (const name of ["before", "after", "after2"]) expect(spans.get(name)).toEqual({ "url.full": RESOURCE_MASKED });
  });
});
