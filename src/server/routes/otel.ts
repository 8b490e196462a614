/**
 * `POST /otel/v1/traces`: OTLP/HTTP ingestion (protobuf or JSON, gzip). Each span becomes one complete call
 * (DESIGN §2.1); spans the service refuses are reported in `partial_success` and the rest are stored, all in one
 * transaction. The project comes from the resource attributes `wandb.entity` + `wandb.project` when present, else
 * from the `project_id` header.
 */
import { ProtobufWriter, WIRE_VARINT } from "../../wire/protobuf-writer.js";
import { HttpError } from "../http.js";
import { RejectedSpan, spanToCall } from "../otlp-calls.js";
import { decodeTraceRequest, OtlpDecodeError, type OtlpSpan } from "../otlp-decode.js";
import type { Router } from "../router.js";
import type { CallWrite } from "../store/types.js";
import { checkProject, endWrite, startWrite } from "./calls.js";

const MAX_REPORTED = 20;

function encodeResponse(json: boolean, rejected: number, message: string): { bytes: Uint8Array; contentType: string } {
  if (json) {
    const body = rejected ? { partialSuccess: { rejectedSpans: String(rejected), errorMessage: message } } : {};
    return { bytes: Buffer.from(JSON.stringify(body)), contentType: "application/json" };
  }
  const w = new ProtobufWriter(256);
  if (rejected) {
    const start = w.startMessage(1);
    w.tag(1, WIRE_VARINT);
    w.int64(rejected);
    w.stringField(2, message);
    w.endMessage(start);
  }
  return { bytes: w.finish(), contentType: "application/x-protobuf" };
}

function projectOf(span: OtlpSpan, header: string | undefined): string {
  const entity = span.resource["wandb.entity"];
  const project = span.resource["wandb.project"];
  if (typeof entity === "string" && entity && typeof project === "string" && project) return `${entity}/${project}`;
  if (header) return header;
  throw new RejectedSpan(
    "no project: send the header project_id: entity/project or the resource attributes wandb.entity and wandb.project",
  );
}

export function otelRoutes(router: Router): void {
  router.on("POST", "/otel/v1/traces", async (req, { store }) => {
    const contentType = String(req.headers["content-type"] ?? "").toLowerCase();
    const json = contentType.includes("json");
    if (!json && !contentType.includes("protobuf")) {
      throw new HttpError(415, "Unsupported content type: send application/x-protobuf or application/json.");
    }
    const header = req.headers.project_id;
    const headerProject = typeof header === "string" && header ? checkProject(header) : undefined;

    let spans: OtlpSpan[];
    try {
      spans = decodeTraceRequest(await req.body(), contentType);
    } catch (err) {
      if (err instanceof OtlpDecodeError) throw new HttpError(400, `Invalid OTLP request: ${err.message}`);
      throw err;
    }

    const writes: CallWrite[] = [];
    const reasons: string[] = [];
    for (const span of spans) {
      try {
        const { start, end } = spanToCall(span, projectOf(span, headerProject));
        writes.push(startWrite(start), endWrite(end));
      } catch (err) {
        if (!(err instanceof RejectedSpan || err instanceof HttpError)) throw err;
        reasons.push(
          `Rejected span (name='${span.name}' trace_id='${span.traceId}' span_id='${span.spanId}'): ${err.message}`,
        );
      }
    }
    if (spans.length > 0 && writes.length === 0 && !headerProject && reasons.every((r) => r.includes("no project"))) {
      throw new HttpError(400, "No project: send the header project_id: entity/project.");
    }
    store.writeCalls(writes);
    return { ...encodeResponse(json, reasons.length, reasons.slice(0, MAX_REPORTED).join("; ")), status: 200 };
  });
}
