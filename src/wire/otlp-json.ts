/**
 * OTLP/JSON encoding of one span and of attributes, written as UTF-8 straight into a buffer by `JsonWriter` (the
 * bytes `JSON.stringify` would produce for the OTLP/JSON object, without building it). Ids are lower-case hex, enums
 * are integers, and every int64 (timestamps *and* `intValue`) is a decimal string, the canonical proto3 JSON form
 * (receivers must accept it; OTel JS sends `intValue` as a number). Optional proto3 fields are left out when empty.
 */

import type { Attributes, HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { KeyRedactor } from "../secrets.js";
import { AttributeCache, maskedUncached, maskedValue } from "./attribute-cache.js";
import { JsonWriter, literal } from "./json-writer.js";
import { capString, isInt64, spanFlags } from "./otlp-encode.js";
import { exportedSpanName, type VouchedValues, vouchedValues } from "./span-to-call.js";

/** Fixed JSON text, encoded once. */
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

/**
 * Exact decimal nanoseconds of an HrTime (no float rounding), as a quoted int64. A time that is not a valid
 * non-negative HrTime (an invalid `Date` passed to `span.end()`, say) is written as `"0"`.
 */
function writeJsonNanos(w: JsonWriter, time: HrTime): void {
  const seconds = Math.trunc(time?.[0]) + Math.floor(time?.[1] / 1e9);
  const nanos = Math.trunc(time?.[1] % 1e9);
  w.ascii('"');
  if (!(seconds >= 0 && nanos >= 0 && Number.isSafeInteger(seconds))) w.ascii("0");
  else if (seconds === 0) w.digits(nanos, 0);
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
      w.string(v.length > maxValueLength ? capString(v, maxValueLength) : v);
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

const scratch = new JsonWriter(1024);
/** Encoded `{"key":…,"value":{…}}` objects of repeating attributes; see attribute-cache.ts. */
const attributeCache = new AttributeCache(
  (key) => {
    scratch.reset();
    scratch.literal(L.key);
    scratch.string(key);
    scratch.literal(L.value);
    return scratch.finish();
  },
  (entry, value) => {
    scratch.reset();
    scratch.bytes(entry.key);
    writeJsonAnyValue(scratch, value);
    scratch.literal(L.close);
    return scratch.finish();
  },
);

/**
 * `repeated KeyValue` as a JSON array: `[{"key":…,"value":{…}},…]`. With a `redactor`, values are written as they
 * may leave the process (credential keys and URL passwords masked; see attribute-cache.ts).
 */
export function writeJsonAttributes(
  w: JsonWriter,
  attributes: Attributes | undefined,
  checkWith?: KeyRedactor,
  vouched?: VouchedValues,
): void {
  w.literal(L.open);
  let first = true;
  if (attributes) {
    for (const key in attributes) {
      if (!first) w.literal(L.comma);
      first = false;
      const v = attributes[key];
      // A value tracewire wrote from a scrubbed payload, still as written, is not checked again (span-to-call.ts).
      const redactor = vouched !== undefined && vouched[key] === v ? undefined : checkWith;
      const entry = attributeCache.entry(key);
      if (entry === undefined) {
        w.literal(L.key);
        w.string(key);
        w.literal(L.value);
        writeJsonAnyValue(w, maskedUncached(key, v, redactor));
        w.literal(L.close);
        continue;
      }
      const pair = attributeCache.pair(entry, v, redactor);
      if (pair) {
        w.bytes(pair);
        continue;
      }
      w.bytes(entry.key);
      writeJsonAnyValue(w, maskedValue(entry, v));
      w.literal(L.close);
    }
  }
  w.literal(L.end);
}

/**
 * One span as an OTLP/JSON object. Optional proto3 fields (trace state, parent span id, status message) are left
 * out when empty, as `JSON.stringify` leaves out `undefined`.
 */
export function writeJsonSpan(
  w: JsonWriter,
  span: ReadableSpan,
  maxAttributeValueLength = Number.POSITIVE_INFINITY,
  redactor?: KeyRedactor,
): void {
  maxValueLength = maxAttributeValueLength;
  try {
    writeJsonSpanObject(w, span, redactor);
  } finally {
    maxValueLength = Number.POSITIVE_INFINITY;
  }
}

/** Longest string attribute value written for the span being encoded (as in otlp-encode.ts); unlimited outside. */
let maxValueLength = Number.POSITIVE_INFINITY;

function writeJsonSpanObject(w: JsonWriter, span: ReadableSpan, redactor: KeyRedactor | undefined): void {
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
  w.string(exportedSpanName(span)); // a tracewire call's op name
  w.literal(L.kind);
  w.number(span.kind + 1); // a kind that is not a number is null (proto3 JSON: the default)
  w.literal(L.start);
  writeJsonNanos(w, span.startTime);
  w.literal(L.end_);
  writeJsonNanos(w, span.endTime);
  w.literal(L.attributes);
  writeJsonAttributes(w, span.attributes, redactor, vouchedValues(span)); // checked with a redactor
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
