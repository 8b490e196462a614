/**
 * Integers past 2^53 in a call's inputs, output and attributes keep every digit in the local service, as the hosted
 * service (Python) keeps them: stored, read back by `/call/read` and `/calls/stream_query`, and compared exactly by
 * the query language — with each store; so do objects, table rows, feedback and the int64 attributes of OTLP spans. Long digit strings and long fractions stay
 * what they were.
 */
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import { atSecond, callId, ndjson, PROJECT, send, setupSeededService } from "./helpers.js";

const TRACE = "ffffffffffffffffffffffffffffffff";
const BIG = "12345678901234567890123";
/** One more than BIG: a double cannot tell them apart. */
const NEXT = "12345678901234567890124";

/** A batch written as raw text: JSON.stringify could not write these numbers. */
const batch = (n: number, id: string): string =>
  `{"batch": [
    {"mode": "start", "req": {"start": {"project_id": "${PROJECT}", "id": "${callId(n)}", "trace_id": "${TRACE}",
      "op_name": "big", "started_at": "${atSecond(n)}", "attributes": {"seed": 18446744073709551615},
      "inputs": {"id": ${id}, "neg": -9007199254740993, "safe": 9007199254740991, "list": [1, 90071992547409930],
                 "ns": "1700000000000000000", "float": 0.30000000000000004,
                 "text": "[1, 12345678901234567890]"}}}},
    {"mode": "end", "req": {"end": {"project_id": "${PROJECT}", "id": "${callId(n)}", "ended_at": "${atSecond(n + 1)}",
      "output": 98765432109876543210, "summary": {}}}}
  ]}`;

describe.each(["sqlite", "memory"] as const)("%s store", (storage) => {
  const ctx = setupSeededService(storage, async (service) => {
    for (const [n, id] of [
      [1, BIG],
      [2, NEXT],
    ] as const) {
      const res = await send(service.url, "/call/upsert_batch", batch(n, id));
      expect(res.status, res.text).toBe(200);
    }
  });

  it("stores and returns every digit of integers past 2^53", async () => {
    const read = await send(ctx.service.url, "/call/read", { project_id: PROJECT, id: callId(1) });
    expect(read.status).toBe(200);
    for (const written of [
      `"id":${BIG}`,
      '"neg":-9007199254740993',
      '"safe":9007199254740991',
      '"list":[1,90071992547409930]',
      '"ns":"1700000000000000000"',
      '"float":0.30000000000000004',
      // Digits inside a string are text, even where they look like a value.
      '"text":"[1, 12345678901234567890]"',
      '"output":98765432109876543210',
      '"seed":18446744073709551615',
    ]) {
      expect(read.text).toContain(written);
    }
    const stream = await send(ctx.service.url, "/calls/stream_query", { project_id: PROJECT });
    expect(stream.text).toContain(`"id":${BIG}`);
    expect(stream.text).toContain(`"id":${NEXT}`);
  });

  it("compares them exactly in queries", async () => {
    const query = (id: string) =>
      send(
        ctx.service.url,
        "/calls/stream_query",
        `{"project_id": "${PROJECT}", "query": {"$expr": {"$eq": [{"$getField": "inputs.id"}, {"$literal": ${id}}]}}}`,
      );
    const found = await query(NEXT);
    expect(found.status, found.text).toBe(200);
    expect(ndjson(found.text).map((c) => c.id)).toEqual([callId(2)]);
    const above = await send(
      ctx.service.url,
      "/calls/stream_query",
      `{"project_id": "${PROJECT}", "query": {"$expr": {"$gt": [{"$getField": "inputs.id"}, {"$literal": ${BIG}}]}}}`,
    );
    expect(ndjson(above.text).map((c) => c.id)).toEqual([callId(2)]);
  });

  it("keeps them in objects, table rows and feedback too", async () => {
    const feedback = await send(
      ctx.service.url,
      "/feedback/create",
      `{"project_id": "${PROJECT}", "weave_ref": "weave:///${PROJECT}/call/${callId(1)}",
        "feedback_type": "ticket", "payload": {"value": ${BIG}}}`,
    );
    expect(feedback.status, feedback.text).toBe(200);
    const queried = await send(ctx.service.url, "/feedback/query", { project_id: PROJECT });
    expect(queried.text).toContain(`"payload":{"value":${BIG}}`);

    const obj = await send(
      ctx.service.url,
      "/obj/create",
      `{"obj": {"project_id": "${PROJECT}", "object_id": "big", "val": {"n": ${BIG}}}}`,
    );
    expect(obj.status, obj.text).toBe(200);
    const { digest } = obj.json as { digest: string };
    const read = await send(ctx.service.url, "/obj/read", { project_id: PROJECT, object_id: "big", digest });
    expect(read.text).toContain(`"val":{"n":${BIG}}`);

    const table = await send(
      ctx.service.url,
      "/table/create",
      `{"table": {"project_id": "${PROJECT}", "rows": [{"id": ${NEXT}}]}}`,
    );
    expect(table.status, table.text).toBe(200);
    const rows = await send(ctx.service.url, "/table/query", {
      project_id: PROJECT,
      digest: (table.json as { digest: string }).digest,
    });
    expect(rows.text).toContain(`"val":{"id":${NEXT}}`);
  });

  it("keeps int64 span attributes exact, from OTLP protobuf and JSON", async () => {
    const MAX = "9223372036854775807";
    const MIN = "-9223372036854775808";
    const span = (spanId: string, attributes: object[]) => ({
      traceId: TRACE,
      spanId,
      name: "otlp",
      startTimeUnixNano: "1767607200000000000",
      endTimeUnixNano: "1767607201000000000",
      attributes,
    });
    const root = protobuf.loadSync(fileURLToPath(new URL("../support/otlp.proto", import.meta.url)));
    const Request = root.lookupType("tracewire.test.otlp.ExportTraceServiceRequest");
    const message = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  ...span("", []),
                  traceId: Buffer.from(TRACE, "hex"),
                  spanId: Buffer.from("0000000000000a01", "hex"),
                  attributes: [{ key: "max", value: { intValue: MAX } }],
                },
              ],
            },
          ],
        },
      ],
    };
    const pb = await fetch(`${ctx.service.url}/otel/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/x-protobuf", project_id: PROJECT },
      body: Request.encode(Request.fromObject(message)).finish(),
    });
    expect(pb.status).toBe(200);
    // Proto3 JSON writes an int64 as a string; a JSON number is read exactly too.
    const body = JSON.stringify({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                span("0000000000000a02", [
                  { key: "max", value: { intValue: MAX } },
                  { key: "min", value: { intValue: "MIN AS A NUMBER" } },
                ]),
              ],
            },
          ],
        },
      ],
    }).replace('"MIN AS A NUMBER"', MIN);
    const json = await send(ctx.service.url, "/otel/v1/traces", body, { headers: { project_id: PROJECT } });
    expect(json.status, json.text).toBe(200);
    const one = await send(ctx.service.url, "/call/read", { project_id: PROJECT, id: "0000000000000a01" });
    expect(one.text).toContain(`"max":${MAX}`);
    const two = await send(ctx.service.url, "/call/read", { project_id: PROJECT, id: "0000000000000a02" });
    expect(two.text).toContain(`"max":${MAX}`);
    expect(two.text).toContain(`"min":${MIN}`);
  });
});
