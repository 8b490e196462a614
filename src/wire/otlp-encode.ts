/**
 * Our own OTLP trace encoding (no `@opentelemetry/otlp-transformer`): one span as a binary-protobuf `Span`,
 * resource and scope attributes, and decoding of the `ExportTraceServiceResponse` a 200 answer may carry (OTLP/JSON
 * spans: otlp-json.ts). `otlp-batch.ts` encodes spans with these as they end and assembles the request around them.
 *
 * Field numbers below are those of opentelemetry-proto: `collector/trace/v1/trace_service.proto`,
 * `trace/v1/trace.proto`, `common/v1/common.proto`, `resource/v1/resource.proto`.
 *
 * Decisions (mirroring what OTel JS's exporters send, see standards.md §1.1):
 * - `kind` is the API `SpanKind` + 1 (API INTERNAL=0 → OTLP SPAN_KIND_INTERNAL=1).
 * - `flags` (span and link) = W3C trace flags (low 8 bits) | 0x100 SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK, plus
 *   0x200 SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK when the parent (for a span) or the linked context (for a link) is
 *   remote.
 * - A JS number that is an integer in int64 range is an `int_value`; any other number is a `double_value`.
 */

import type { Attributes, HrTime } from "@opentelemetry/api";
import type { InstrumentationScope } from "@opentelemetry/core";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { KeyRedactor } from "../secrets.js";
import { AttributeCache, maskedUncached, maskedValue } from "./attribute-cache.js";
import {
  ProtobufReader,
  ProtobufWriter,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_LEN,
  WIRE_VARINT,
} from "./protobuf-writer.js";
import { exportedSpanName, type VouchedValues, vouchedValues } from "./span-to-call.js";

const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;
const INT64_LIMIT = 2 ** 63;

const textDecoder = new TextDecoder();

/** Scope attributes are not in core 2.x's `InstrumentationScope` type but may be present at runtime. */
export function scopeAttributes(scope: InstrumentationScope): Attributes | undefined {
  return (scope as { attributes?: Attributes }).attributes;
}

/** Span/Link `flags` (fixed32): trace flags plus the "has is-remote" / "is remote" bits. */
export function spanFlags(traceFlags: number, remote: boolean | undefined): number {
  return (traceFlags & 0xff) | HAS_IS_REMOTE | (remote ? IS_REMOTE : 0);
}

export function isInt64(v: number): boolean {
  return Number.isInteger(v) && v >= -INT64_LIMIT && v < INT64_LIMIT;
}

// ---------------------------------------------------------------------------------------------------------------
// Protobuf

/**
 * AnyValue body: string_value=1, bool_value=2, int_value=3, double_value=4, array_value=5. SDK 2.x admits only
 * primitives and homogeneous primitive arrays, so kvlist_value=6 and bytes_value=7 are never needed.
 */
function writeAnyValue(w: ProtobufWriter, v: unknown): void {
  switch (typeof v) {
    case "string":
      w.tag(1, WIRE_LEN);
      w.string(v.length > maxValueLength ? capString(v, maxValueLength) : v);
      return;
    case "boolean":
      w.tag(2, WIRE_VARINT);
      w.varint(v ? 1 : 0);
      return;
    case "number":
      if (isInt64(v)) {
        w.tag(3, WIRE_VARINT);
        w.int64(v);
      } else {
        w.tag(4, WIRE_FIXED64);
        w.double(v);
      }
      return;
    case "object":
      if (Array.isArray(v)) {
        const arr = w.startMessage(5);
        for (const item of v) {
          const el = w.startMessage(1); // ArrayValue.values = 1; null/undefined → empty AnyValue
          writeAnyValue(w, item);
          w.endMessage(el);
        }
        w.endMessage(arr);
      }
      return;
    default:
    // null, undefined and other types (the SDK lets none through) stay an empty AnyValue.
  }
}

const scratch = new ProtobufWriter(1024);
/** Encoded `KeyValue` bodies (key=1, value=2) of repeating attributes; see attribute-cache.ts. */
const attributeCache = new AttributeCache(
  (key) => {
    scratch.reset();
    scratch.stringField(1, key);
    return scratch.finish();
  },
  (entry, value) => {
    scratch.reset();
    scratch.bytes(entry.key);
    writeValueField(scratch, value);
    return scratch.finish();
  },
);

/** KeyValue.value = 2 → AnyValue. */
function writeValueField(w: ProtobufWriter, v: unknown): void {
  const value = w.startMessage(2);
  writeAnyValue(w, v);
  w.endMessage(value);
}

/**
 * `repeated KeyValue` at `field`; KeyValue: key=1, value=2. With a `redactor`, values are written as they may leave
 * the process (credential keys and URL passwords masked; see attribute-cache.ts).
 */
export function writeAttributes(
  w: ProtobufWriter,
  field: number,
  attributes: Attributes | undefined,
  checkWith?: KeyRedactor,
  vouched?: VouchedValues,
): void {
  if (!attributes) return;
  for (const key in attributes) {
    const v = attributes[key];
    // A value tracewire wrote from a scrubbed payload, still as written, is not checked again (span-to-call.ts).
    const redactor = vouched !== undefined && vouched[key] === v ? undefined : checkWith;
    const entry = attributeCache.entry(key);
    if (entry === undefined) {
      const kv = w.startMessage(field);
      w.stringField(1, key);
      writeValueField(w, maskedUncached(key, v, redactor));
      w.endMessage(kv);
      continue;
    }
    const pair = attributeCache.pair(entry, v, redactor);
    if (pair) {
      w.tag(field, WIRE_LEN);
      w.varint(pair.length);
      w.bytes(pair);
      continue;
    }
    const kv = w.startMessage(field);
    w.bytes(entry.key);
    writeValueField(w, maskedValue(entry, v));
    w.endMessage(kv);
  }
}

function writeTime(w: ProtobufWriter, field: number, time: HrTime): void {
  w.tag(field, WIRE_FIXED64);
  w.hrTimeNanos(time[0], time[1]);
}

/** Longest string attribute value written for the span being encoded (see {@link writeSpan}); unlimited outside. */
let maxValueLength = Number.POSITIVE_INFINITY;

/**
 * `v` cut to `max` UTF-16 units, as OTel's `attributeValueLengthLimit` cuts, never between the two halves of a
 * surrogate pair.
 */
export function capString(v: string, max: number): string {
  if (v.length <= max) return v;
  const end = max > 0 && (v.charCodeAt(max - 1) & 0xfc00) === 0xd800 ? max - 1 : max;
  return v.slice(0, end);
}

/**
 * ScopeSpans.spans = 2 → Span. String attribute values (span, event and link attributes) longer than
 * `maxAttributeValueLength` are cut to it: a foreign span carrying a 10 MiB attribute must not become a 10 MiB
 * request, nor cost the app the time to encode it in `span.end()`.
 */
export function writeSpan(
  w: ProtobufWriter,
  span: ReadableSpan,
  maxAttributeValueLength = Number.POSITIVE_INFINITY,
  redactor?: KeyRedactor,
): void {
  maxValueLength = maxAttributeValueLength;
  try {
    writeSpanMessage(w, span, redactor);
  } finally {
    maxValueLength = Number.POSITIVE_INFINITY;
  }
}

function writeSpanMessage(w: ProtobufWriter, span: ReadableSpan, redactor: KeyRedactor | undefined): void {
  const ctx = span.spanContext();
  const start = w.startMessage(2);
  w.hexField(1, ctx.traceId); // trace_id
  w.hexField(2, ctx.spanId); // span_id
  w.stringField(3, ctx.traceState?.serialize()); // trace_state
  w.hexField(4, span.parentSpanContext?.spanId); // parent_span_id
  w.stringField(5, exportedSpanName(span)); // name (a tracewire call's op name)
  w.uint32Field(6, span.kind + 1); // kind
  writeTime(w, 7, span.startTime); // start_time_unix_nano
  writeTime(w, 8, span.endTime); // end_time_unix_nano
  writeAttributes(w, 9, span.attributes, redactor, vouchedValues(span)); // attributes (checked with a redactor)
  w.uint32Field(10, span.droppedAttributesCount); // dropped_attributes_count
  for (const event of span.events) {
    const e = w.startMessage(11); // events → Event
    writeTime(w, 1, event.time); // time_unix_nano
    w.stringField(2, event.name); // name
    writeAttributes(w, 3, event.attributes); // attributes
    w.uint32Field(4, event.droppedAttributesCount); // dropped_attributes_count
    w.endMessage(e);
  }
  w.uint32Field(12, span.droppedEventsCount); // dropped_events_count
  for (const link of span.links) {
    const l = w.startMessage(13); // links → Link
    w.hexField(1, link.context.traceId); // trace_id
    w.hexField(2, link.context.spanId); // span_id
    w.stringField(3, link.context.traceState?.serialize()); // trace_state
    writeAttributes(w, 4, link.attributes); // attributes
    w.uint32Field(5, link.droppedAttributesCount); // dropped_attributes_count
    w.tag(6, WIRE_FIXED32); // flags
    w.fixed32(spanFlags(link.context.traceFlags, link.context.isRemote));
    w.endMessage(l);
  }
  w.uint32Field(14, span.droppedLinksCount); // dropped_links_count
  const status = w.startMessage(15); // status → Status: message=2, code=3
  w.stringField(2, span.status.message);
  w.uint32Field(3, span.status.code);
  w.endMessage(status);
  w.tag(16, WIRE_FIXED32); // flags
  w.fixed32(spanFlags(ctx.traceFlags, span.parentSpanContext?.isRemote));
  w.endMessage(start);
}

// ---------------------------------------------------------------------------------------------------------------
// Response

/** `ExportTracePartialSuccess` from a 200 answer. */
export interface ExportPartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

/** ExportTraceServiceResponse.partial_success = 1 → ExportTracePartialSuccess {rejected_spans = 1, error_message = 2}. */
function decodeProtoResponse(body: Uint8Array): ExportPartialSuccess | undefined {
  let result: ExportPartialSuccess | undefined;
  for (const outer = new ProtobufReader(body); !outer.done(); ) {
    const key = outer.varint();
    if (key !== ((1 << 3) | WIRE_LEN)) {
      outer.skip(key & 7);
      continue;
    }
    result ??= { rejectedSpans: 0, errorMessage: "" };
    for (const inner = new ProtobufReader(outer.bytes()); !inner.done(); ) {
      const k = inner.varint();
      if (k === ((1 << 3) | WIRE_VARINT)) result.rejectedSpans = inner.varint();
      else if (k === ((2 << 3) | WIRE_LEN)) result.errorMessage = inner.string();
      else inner.skip(k & 7);
    }
  }
  return result;
}

function decodeJsonResponse(text: string): ExportPartialSuccess | undefined {
  const outer = (JSON.parse(text) ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const ps = outer.partialSuccess ?? outer.partial_success;
  if (typeof ps !== "object" || ps === null) return undefined;
  const rejected = Number(ps.rejectedSpans ?? ps.rejected_spans ?? 0);
  const message = ps.errorMessage ?? ps.error_message;
  return { rejectedSpans: rejected || 0, errorMessage: typeof message === "string" ? message : "" };
}

/**
 * Reads `partial_success` from a 200 `ExportTraceServiceResponse`, in protobuf or JSON (chosen by `contentType`,
 * or by sniffing a leading `{` when the type says neither). JSON accepts `partialSuccess` and `partial_success`,
 * and `rejectedSpans` as a number or a string.
 *
 * Returns `undefined` for full success: an empty body, no `partial_success`, or one with both fields empty (which
 * the spec counts as success). A malformed body is also `undefined`: never throws.
 */
export function decodeExportResponse(
  body: Uint8Array | undefined,
  contentType: string | undefined,
): ExportPartialSuccess | undefined {
  if (!body || body.length === 0) return undefined;
  try {
    const type = (contentType ?? "").toLowerCase();
    const text =
      type.includes("json") || (!type.includes("protobuf") && body[0] === 0x7b) ? textDecoder.decode(body) : undefined;
    const result = text === undefined ? decodeProtoResponse(body) : text.trim() ? decodeJsonResponse(text) : undefined;
    if (!result || (result.rejectedSpans === 0 && result.errorMessage === "")) return undefined;
    return result;
  } catch {
    return undefined;
  }
}
