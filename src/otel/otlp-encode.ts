/**
 * Our own OTLP trace encoding (no `@opentelemetry/otlp-transformer`): one span as a binary-protobuf `Span` or an
 * OTLP/JSON span object, resource and scope attributes, and decoding of the `ExportTraceServiceResponse` a 200
 * answer may carry. `otlp-batch.ts` encodes spans with these as they end and assembles the request around them.
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
 * - JSON: ids are lower-case hex, enums are integers, and every int64 (timestamps *and* `intValue`) is a decimal
 *   string, the canonical proto3 JSON form (receivers must accept it; OTel JS sends `intValue` as a number).
 */
import type { Attributes, HrTime } from "@opentelemetry/api";
import type { InstrumentationScope } from "@opentelemetry/core";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { JsonWriter, literal } from "./json-writer.js";
import {
  ProtobufReader,
  ProtobufWriter,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_LEN,
  WIRE_VARINT,
} from "./protobuf-writer.js";

const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;
const INT64_LIMIT = 2 ** 63;

const textDecoder = new TextDecoder();

/** Scope attributes are not in core 2.x's `InstrumentationScope` type but may be present at runtime. */
export function scopeAttributes(scope: InstrumentationScope): Attributes | undefined {
  return (scope as { attributes?: Attributes }).attributes;
}

/** Span/Link `flags` (fixed32): trace flags plus the "has is-remote" / "is remote" bits. */
function spanFlags(traceFlags: number, remote: boolean | undefined): number {
  return (traceFlags & 0xff) | HAS_IS_REMOTE | (remote ? IS_REMOTE : 0);
}

function isInt64(v: number): boolean {
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
      w.string(v);
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

/**
 * What is cached per attribute key: its encoded `KeyValue.key` field, the value it had last time (a primitive of
 * bounded size), and — once that value repeats — the whole encoded `KeyValue` body for it. Instrumentations use a
 * small fixed set of keys, and many values repeat span after span (operation, provider, model, server address), so
 * most attributes become one copy of cached bytes; values that change every time (ids, token counts) only pay a
 * comparison. The cache stops growing at `MAX_CACHED_KEYS` keys (later keys are encoded each time).
 */
interface KeyEntry {
  key: Uint8Array;
  value: unknown;
  pair: Uint8Array | undefined;
}
const keyEntries = new Map<string, KeyEntry>();
const MAX_CACHED_KEYS = 1024;
const MAX_CACHED_KEY_LENGTH = 128;
const MAX_CACHED_VALUE_LENGTH = 256;
/** The value of an entry that matches nothing (objects and long strings are never held). */
const NO_VALUE = Symbol("no value");
const scratch = new ProtobufWriter(1024);

/** What an entry may remember of a value: primitives of bounded size (objects and long strings are never held). */
function cacheableValue(v: unknown): unknown {
  return typeof v === "object" || (typeof v === "string" && v.length > MAX_CACHED_VALUE_LENGTH) ? NO_VALUE : v;
}

function keyEntry(key: string): KeyEntry | undefined {
  let entry = keyEntries.get(key);
  if (entry === undefined) {
    if (keyEntries.size >= MAX_CACHED_KEYS || key.length > MAX_CACHED_KEY_LENGTH) return undefined;
    scratch.reset();
    scratch.stringField(1, key);
    entry = { key: scratch.finish(), value: NO_VALUE, pair: undefined };
    keyEntries.set(key, entry);
  }
  return entry;
}

/** KeyValue.value = 2 → AnyValue. */
function writeValueField(w: ProtobufWriter, v: unknown): void {
  const value = w.startMessage(2);
  writeAnyValue(w, v);
  w.endMessage(value);
}

/** `repeated KeyValue` at `field`; KeyValue: key=1, value=2. */
export function writeAttributes(w: ProtobufWriter, field: number, attributes: Attributes | undefined): void {
  if (!attributes) return;
  for (const key in attributes) {
    const v = attributes[key];
    const entry = keyEntry(key);
    if (entry !== undefined && entry.value === v) {
      // Seen with this very value last time: the whole KeyValue is cached bytes (encoded on the first repeat).
      if (entry.pair === undefined) {
        scratch.reset();
        scratch.bytes(entry.key);
        writeValueField(scratch, v);
        entry.pair = scratch.finish();
      }
      w.tag(field, WIRE_LEN);
      w.varint(entry.pair.length);
      w.bytes(entry.pair);
      continue;
    }
    const kv = w.startMessage(field);
    if (entry === undefined) w.stringField(1, key);
    else {
      w.bytes(entry.key);
      entry.value = cacheableValue(v);
      entry.pair = undefined;
    }
    writeValueField(w, v);
    w.endMessage(kv);
  }
}

function writeTime(w: ProtobufWriter, field: number, time: HrTime): void {
  w.tag(field, WIRE_FIXED64);
  w.hrTimeNanos(time[0], time[1]);
}

/** ScopeSpans.spans = 2 → Span. */
export function writeSpan(w: ProtobufWriter, span: ReadableSpan): void {
  const ctx = span.spanContext();
  const start = w.startMessage(2);
  w.hexField(1, ctx.traceId); // trace_id
  w.hexField(2, ctx.spanId); // span_id
  w.stringField(3, ctx.traceState?.serialize()); // trace_state
  w.hexField(4, span.parentSpanContext?.spanId); // parent_span_id
  w.stringField(5, span.name); // name
  w.uint32Field(6, span.kind + 1); // kind
  writeTime(w, 7, span.startTime); // start_time_unix_nano
  writeTime(w, 8, span.endTime); // end_time_unix_nano
  writeAttributes(w, 9, span.attributes); // attributes
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
// JSON

const L = {
  stringValue: literal('{"stringValue":'),
  boolTrue: literal('{"boolValue":true}'),
  boolFalse: literal('{"boolValue":false}'),
  intValue: literal('{"intValue":"'),
  doubleValue: literal('{"doubleValue":'),
  arrayValue: literal('{"arrayValue":{"values":['),
  arrayEnd: literal("]}}"),
  empty: literal("{}"),
  close: literal("}"),
  quoteClose: literal('"}'),
  comma: literal(","),
  open: literal("["),
  end: literal("]"),
  key: literal('{"key":'),
  value: literal(',"value":'),
  traceId: literal('{"traceId":'),
  nextTraceId: literal(',{"traceId":'),
  spanId: literal(',"spanId":'),
  traceState: literal(',"traceState":'),
  parentSpanId: literal(',"parentSpanId":'),
  flags: literal(',"flags":'),
  name: literal(',"name":'),
  kind: literal(',"kind":'),
  start: literal(',"startTimeUnixNano":'),
  end_: literal(',"endTimeUnixNano":'),
  attributes: literal(',"attributes":'),
  droppedAttributes: literal(',"droppedAttributesCount":'),
  events: literal(',"events":['),
  time: literal('{"timeUnixNano":'),
  nextTime: literal(',{"timeUnixNano":'),
  droppedEvents: literal('],"droppedEventsCount":'),
  links: literal(',"links":['),
  droppedLinks: literal('],"droppedLinksCount":'),
  status: literal(',"status":{"code":'),
  message: literal(',"message":'),
  spanEnd: literal("}}"),
};

/** Exact decimal nanoseconds of an HrTime (no float rounding), as a quoted int64. */
function writeJsonNanos(w: JsonWriter, time: HrTime): void {
  const seconds = Math.trunc(time[0]) + Math.floor(time[1] / 1e9);
  const nanos = Math.trunc(time[1] % 1e9);
  w.ascii('"');
  if (seconds === 0) w.digits(nanos, 0);
  else {
    w.digits(seconds, 0);
    w.digits(nanos, 9);
  }
  w.ascii('"');
}

/** AnyValue as proto3 JSON: `{"stringValue":…}`, `{"intValue":"…"}`, …; null and unknown types are `{}`. */
function writeJsonAnyValue(w: JsonWriter, v: unknown): void {
  switch (typeof v) {
    case "string":
      w.literal(L.stringValue);
      w.string(v);
      w.literal(L.close);
      return;
    case "boolean":
      w.literal(v ? L.boolTrue : L.boolFalse);
      return;
    case "number":
      if (isInt64(v)) {
        // int64 is a quoted decimal string in proto3 JSON.
        w.literal(L.intValue);
        w.number(v);
        w.literal(L.quoteClose);
      } else if (Number.isFinite(v)) {
        w.literal(L.doubleValue);
        w.number(v);
        w.literal(L.close);
      } else {
        // proto3 JSON spells non-finite doubles as strings.
        w.literal(L.doubleValue);
        w.string(String(v));
        w.literal(L.close);
      }
      return;
    case "object":
      if (Array.isArray(v)) {
        w.literal(L.arrayValue);
        for (let i = 0; i < v.length; i++) {
          if (i > 0) w.literal(L.comma);
          writeJsonAnyValue(w, v[i]);
        }
        w.literal(L.arrayEnd);
        return;
      }
      w.literal(L.empty);
      return;
    default:
      w.literal(L.empty);
  }
}

/**
 * The JSON counterpart of `keyEntries`: per key, `{"key":"…","value":` encoded once, the last value, and once it
 * repeats the whole `{"key":…,"value":{…}}` object.
 */
const jsonKeyEntries = new Map<string, KeyEntry>();
const jsonScratch = new JsonWriter(1024);

function jsonKeyEntry(key: string): KeyEntry | undefined {
  let entry = jsonKeyEntries.get(key);
  if (entry === undefined) {
    if (jsonKeyEntries.size >= MAX_CACHED_KEYS || key.length > MAX_CACHED_KEY_LENGTH) return undefined;
    jsonScratch.reset();
    jsonScratch.literal(L.key);
    jsonScratch.string(key);
    jsonScratch.literal(L.value);
    entry = { key: jsonScratch.finish(), value: NO_VALUE, pair: undefined };
    jsonKeyEntries.set(key, entry);
  }
  return entry;
}

/** `repeated KeyValue` as a JSON array: `[{"key":…,"value":{…}},…]`. */
export function writeJsonAttributes(w: JsonWriter, attributes: Attributes | undefined): void {
  w.literal(L.open);
  let first = true;
  if (attributes) {
    for (const key in attributes) {
      if (!first) w.literal(L.comma);
      first = false;
      const v = attributes[key];
      const entry = jsonKeyEntry(key);
      if (entry !== undefined && entry.value === v) {
        if (entry.pair === undefined) {
          jsonScratch.reset();
          jsonScratch.bytes(entry.key);
          writeJsonAnyValue(jsonScratch, v);
          jsonScratch.literal(L.close);
          entry.pair = jsonScratch.finish();
        }
        w.bytes(entry.pair);
        continue;
      }
      if (entry === undefined) {
        w.literal(L.key);
        w.string(key);
        w.literal(L.value);
      } else {
        w.bytes(entry.key);
        entry.value = cacheableValue(v);
        entry.pair = undefined;
      }
      writeJsonAnyValue(w, v);
      w.literal(L.close);
    }
  }
  w.literal(L.end);
}

/**
 * One span as an OTLP/JSON object. Optional proto3 fields (trace state, parent span id, status message) are left
 * out when empty, as `JSON.stringify` leaves out `undefined`.
 */
export function writeJsonSpan(w: JsonWriter, span: ReadableSpan): void {
  const ctx = span.spanContext();
  const parent = span.parentSpanContext;
  w.literal(L.traceId);
  w.hex(ctx.traceId);
  w.literal(L.spanId);
  w.hex(ctx.spanId);
  const traceState = ctx.traceState?.serialize();
  if (traceState) {
    w.literal(L.traceState);
    w.string(traceState);
  }
  if (parent?.spanId) {
    w.literal(L.parentSpanId);
    w.hex(parent.spanId);
  }
  w.literal(L.flags);
  w.number(spanFlags(ctx.traceFlags, parent?.isRemote));
  w.literal(L.name);
  w.string(span.name);
  w.literal(L.kind);
  w.number(span.kind + 1);
  w.literal(L.start);
  writeJsonNanos(w, span.startTime);
  w.literal(L.end_);
  writeJsonNanos(w, span.endTime);
  w.literal(L.attributes);
  writeJsonAttributes(w, span.attributes);
  w.literal(L.droppedAttributes);
  w.number(span.droppedAttributesCount);
  w.literal(L.events);
  for (let i = 0; i < span.events.length; i++) {
    const event = span.events[i] as (typeof span.events)[number];
    w.literal(i > 0 ? L.nextTime : L.time);
    writeJsonNanos(w, event.time);
    w.literal(L.name);
    w.string(event.name);
    w.literal(L.attributes);
    writeJsonAttributes(w, event.attributes);
    w.literal(L.droppedAttributes);
    w.number(event.droppedAttributesCount ?? 0);
    w.literal(L.close);
  }
  w.literal(L.droppedEvents);
  w.number(span.droppedEventsCount);
  w.literal(L.links);
  for (let i = 0; i < span.links.length; i++) {
    const link = span.links[i] as (typeof span.links)[number];
    w.literal(i > 0 ? L.nextTraceId : L.traceId);
    w.hex(link.context.traceId);
    w.literal(L.spanId);
    w.hex(link.context.spanId);
    const linkState = link.context.traceState?.serialize();
    if (linkState) {
      w.literal(L.traceState);
      w.string(linkState);
    }
    w.literal(L.attributes);
    writeJsonAttributes(w, link.attributes);
    w.literal(L.droppedAttributes);
    w.number(link.droppedAttributesCount ?? 0);
    w.literal(L.flags);
    w.number(spanFlags(link.context.traceFlags, link.context.isRemote));
    w.literal(L.close);
  }
  w.literal(L.droppedLinks);
  w.number(span.droppedLinksCount);
  w.literal(L.status);
  w.number(span.status.code);
  if (span.status.message) {
    w.literal(L.message);
    w.string(span.status.message);
  }
  w.literal(L.spanEnd);
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
