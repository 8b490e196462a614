import { ProtocolError, ValidationError } from "../../errors.js";
import { type CallOptions, withCall } from "../base.js";
import type { OtelExportReq, OtelExportRes, OtelPartialSuccess, OtlpContentType } from "../types/otel.js";
import { EndpointFamily } from "./family.js";

const CONTENT_TYPES: readonly OtlpContentType[] = ["application/x-protobuf", "application/json"];

/** OTel: raw OTLP/HTTP export of already-encoded spans (the span processor's exporter builds the bodies). */
export class OtelApi extends EndpointFamily {
  /**
   * `POST /otel/v1/traces`: sends an encoded `ExportTraceServiceRequest` with header `project_id: entity/project`.
   * A `partial_success` in the answer says how many spans were refused; it is returned, never retried.
   */
  async export(req: OtelExportReq, options?: CallOptions): Promise<OtelExportRes> {
    const method = "otel.export";
    if (req === null || typeof req !== "object") {
      throw new ValidationError(`${method} expects a request object, got ${req === null ? "null" : typeof req}.`);
    }
    const { project_id } = this.fillProject({ project_id: req.project_id }, method);
    if (!(req.body instanceof Uint8Array)) {
      throw new ValidationError(`${method}: body must be a Uint8Array (an encoded OTLP request).`, "body");
    }
    const contentType = req.contentType ?? "application/x-protobuf";
    if (!CONTENT_TYPES.includes(contentType)) {
      throw new ValidationError(`${method}: contentType must be one of ${CONTENT_TYPES.join(", ")}.`, "contentType");
    }
    const request = withCall(
      {
        method: "POST",
        path: "/otel/v1/traces",
        body: req.body,
        contentType,
        gzip: req.gzip ?? true,
        headers: { project_id },
      },
      options,
    );
    const res = await this.context.transport.stream(request);
    const chunks: Buffer[] = [];
    for await (const chunk of res.body) chunks.push(Buffer.from(chunk));
    const bytes = Buffer.concat(chunks);
    if (bytes.length === 0) return {};
    if ((res.headers["content-type"] ?? "").includes("protobuf")) return decodeExportResponse(bytes);
    try {
      return JSON.parse(bytes.toString("utf8")) as OtelExportRes;
    } catch {
      throw new ProtocolError(`${method}: the answer is neither JSON nor protobuf (${bytes.length} bytes).`);
    }
  }
}

/** Reads a base-128 varint at `pos`; returns the value and the next position. */
function varint(bytes: Uint8Array, pos: number): [number, number] {
  let value = 0;
  for (let shift = 0; shift < 64; shift += 7) {
    if (pos >= bytes.length) throw new ProtocolError("otel.export: truncated protobuf answer.");
    const byte = bytes[pos++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, pos];
  }
  throw new ProtocolError("otel.export: malformed varint in the protobuf answer.");
}

/** Visits each field of one protobuf message; unknown fields are skipped. */
function fields(bytes: Uint8Array, visit: (field: number, value: number | Uint8Array) => void): void {
  let pos = 0;
  while (pos < bytes.length) {
    const [tag, afterTag] = varint(bytes, pos);
    const [field, wire] = [Math.floor(tag / 8), tag % 8];
    pos = afterTag;
    if (wire === 0) {
      const [value, next] = varint(bytes, pos);
      visit(field, value);
      pos = next;
    } else if (wire === 2) {
      const [length, start] = varint(bytes, pos);
      if (start + length > bytes.length) throw new ProtocolError("otel.export: truncated protobuf answer.");
      visit(field, bytes.subarray(start, start + length));
      pos = start + length;
    } else if (wire === 1 || wire === 5) {
      pos += wire === 1 ? 8 : 4;
    } else {
      throw new ProtocolError(`otel.export: unsupported protobuf wire type ${wire} in the answer.`);
    }
  }
}

/** Decodes `ExportTraceServiceResponse { partial_success = 1 { rejected_spans = 1; error_message = 2 } }`. */
function decodeExportResponse(bytes: Uint8Array): OtelExportRes {
  const out: OtelExportRes = {};
  fields(bytes, (field, value) => {
    if (field !== 1 || typeof value === "number") return;
    const partial: OtelPartialSuccess = { rejected_spans: 0, error_message: "" };
    fields(value, (inner, v) => {
      if (inner === 1 && typeof v === "number") partial.rejected_spans = v;
      if (inner === 2 && typeof v !== "number") partial.error_message = Buffer.from(v).toString("utf8");
    });
    out.partial_success = partial;
  });
  return out;
}
