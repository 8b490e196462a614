import { ValidationError } from "../../errors.js";
import { decodeExportResponse } from "../../wire/otlp-encode.js";
import { type CallOptions, withCall } from "../base.js";
import type { OtelExportReq, OtelExportRes, OtlpContentType } from "../types/otel.js";
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
    const res = await this.context.transport.buffered(request);
    const partial = decodeExportResponse(res.body, res.headers["content-type"]);
    return partial
      ? { partial_success: { rejected_spans: partial.rejectedSpans, error_message: partial.errorMessage } }
      : {};
  }
}
