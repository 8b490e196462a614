/** Wire types of the OTLP/HTTP ingestion endpoint (`/otel/v1/traces`). */

/** The two OTLP/HTTP encodings; protobuf is the service's documented one. */
export type OtlpContentType = "application/x-protobuf" | "application/json";

/** An encoded `ExportTraceServiceRequest` to send as is. */
export interface OtelExportReq {
  /** `entity/project`, sent as the `project_id` header. Defaults to the client's project. */
  project_id?: string;
  /** The encoded request body. */
  body: Uint8Array;
  /** Default `application/x-protobuf`. */
  contentType?: OtlpContentType;
  /** gzip the body (default true; bodies under 1 KiB are sent plain). */
  gzip?: boolean;
}

/** Spans the service refused; absent or `rejected_spans: 0` means everything was accepted. Never retried. */
export interface OtelPartialSuccess {
  rejected_spans: number;
  error_message: string;
}
/** Answer of `POST /otel/v1/traces`: a `partial_success` when the service refused some spans. */
export interface OtelExportRes {
  partial_success?: OtelPartialSuccess;
}
