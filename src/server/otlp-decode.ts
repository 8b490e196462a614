/**
 * Decodes an OTLP `ExportTraceServiceRequest` (binary protobuf or OTLP/JSON) into flat spans, each carrying its
 * resource and scope. Field numbers are those of opentelemetry-proto (`collector/trace/v1/trace_service.proto`,
 * `trace/v1/trace.proto`, `common/v1/common.proto`, `resource/v1/resource.proto`). Only what the span → call
 * mapping reads is kept; links and dropped counts are skipped.
 */

import { ProtobufReader, WIRE_FIXED32, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from "../wire/protobuf-writer.js";
import { parseExactJson } from "./exact-json.js";

export type AttributeMap = Record<string, unknown>;

export interface OtlpEvent {
  name: string;
  timeUnixNano: bigint;
  attributes: AttributeMap;
}

export interface OtlpSpan {
  /** Lower-case hex; 32 characters when valid. */
  traceId: string;
  /** Lower-case hex; 16 characters when valid. */
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: AttributeMap;
  events: OtlpEvent[];
  status: { code: number; message: string };
  resource: AttributeMap;
  scope: { name: string; version: string };
}

/** A body that is not a valid OTLP request. */
export class OtlpDecodeError extends Error {}

// ---- protobuf ----------------------------------------------------------------------------------------------------

type Fields = (field: number, wire: number, r: ProtobufReader) => boolean;

/** Reads one length-delimited message, handing each field to `on`; fields it does not take are skipped. */
function message(r: ProtobufReader, on: Fields): void {
  const sub = new ProtobufReader(r.bytes());
  while (!sub.done()) {
    const key = sub.varint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (!on(field, wire, sub)) sub.skip(wire);
  }
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

/**
 * An int64 attribute as the service's Python keeps it: a number, or past 2^53 a bigint, which the local service
 * stores and returns with every digit (exact-json.ts).
 */
const exactInt = (n: bigint): number | bigint => (Number.isSafeInteger(Number(n)) ? Number(n) : n);

function anyValue(r: ProtobufReader): unknown {
  let value: unknown = null;
  message(r, (field, wire, m) => {
    if (field === 1 && wire === WIRE_LEN) value = m.string();
    else if (field === 2 && wire === WIRE_VARINT) value = m.varint() !== 0;
    else if (field === 3 && wire === WIRE_VARINT) value = exactInt(BigInt.asIntN(64, m.varintBig()));
    else if (field === 4 && wire === WIRE_FIXED64) value = m.double();
    else if (field === 5 && wire === WIRE_LEN) {
      const values: unknown[] = [];
      message(m, (f, w, a) => f === 1 && w === WIRE_LEN && values.push(anyValue(a)) > 0);
      value = values;
    } else if (field === 6 && wire === WIRE_LEN) {
      const kv: AttributeMap = {};
      message(m, (f, w, a) => f === 1 && w === WIRE_LEN && keyValue(a, kv));
      value = kv;
    } else if (field === 7 && wire === WIRE_LEN) value = Buffer.from(m.bytes()).toString("base64");
    else return false;
    return true;
  });
  return value;
}

function keyValue(r: ProtobufReader, into: AttributeMap): true {
  let key = "";
  let value: unknown = null;
  message(r, (field, wire, m) => {
    if (field === 1 && wire === WIRE_LEN) key = m.string();
    else if (field === 2 && wire === WIRE_LEN) value = anyValue(m);
    else return false;
    return true;
  });
  into[key] = value;
  return true;
}

function protoSpan(r: ProtobufReader, resource: AttributeMap, scope: OtlpSpan["scope"]): OtlpSpan {
  const span: OtlpSpan = {
    traceId: "",
    spanId: "",
    parentSpanId: "",
    name: "",
    kind: 0,
    startTimeUnixNano: 0n,
    endTimeUnixNano: 0n,
    attributes: {},
    events: [],
    status: { code: 0, message: "" },
    resource,
    scope,
  };
  message(r, (field, wire, m) => {
    if (field === 1 && wire === WIRE_LEN) span.traceId = hex(m.bytes());
    else if (field === 2 && wire === WIRE_LEN) span.spanId = hex(m.bytes());
    else if (field === 4 && wire === WIRE_LEN) span.parentSpanId = hex(m.bytes());
    else if (field === 5 && wire === WIRE_LEN) span.name = m.string();
    else if (field === 6 && wire === WIRE_VARINT) span.kind = m.varint();
    else if (field === 7 && wire === WIRE_FIXED64) span.startTimeUnixNano = m.fixed64();
    else if (field === 8 && wire === WIRE_FIXED64) span.endTimeUnixNano = m.fixed64();
    else if (field === 9 && wire === WIRE_LEN) keyValue(m, span.attributes);
    else if (field === 11 && wire === WIRE_LEN) {
      const event: OtlpEvent = { name: "", timeUnixNano: 0n, attributes: {} };
      message(m, (f, w, e) => {
        if (f === 1 && w === WIRE_FIXED64) event.timeUnixNano = e.fixed64();
        else if (f === 2 && w === WIRE_LEN) event.name = e.string();
        else if (f === 3 && w === WIRE_LEN) keyValue(e, event.attributes);
        else return false;
        return true;
      });
      span.events.push(event);
    } else if (field === 15 && wire === WIRE_LEN) {
      message(m, (f, w, s) => {
        if (f === 2 && w === WIRE_LEN) span.status.message = s.string();
        else if (f === 3 && w === WIRE_VARINT) span.status.code = s.varint();
        else return false;
        return true;
      });
    } else if (field === 16 && wire === WIRE_FIXED32) m.fixed32();
    else return false;
    return true;
  });
  return span;
}

function decodeProtobuf(body: Uint8Array): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  const top = new ProtobufReader(body);
  while (!top.done()) {
    const key = top.varint();
    if (key !== ((1 << 3) | WIRE_LEN)) {
      top.skip(key & 7);
      continue;
    }
    // Spans share their resource and scope objects, which are filled in place: field order does not matter.
    const resource: AttributeMap = {};
    message(top, (field, wire, rs) => {
      if (field === 1 && wire === WIRE_LEN)
        message(rs, (f, w, res) => f === 1 && w === WIRE_LEN && keyValue(res, resource));
      else if (field === 2 && wire === WIRE_LEN) {
        const scope = { name: "", version: "" };
        message(rs, (f, w, ss) => {
          if (f === 1 && w === WIRE_LEN)
            message(ss, (sf, sw, sc) => {
              if (sf === 1 && sw === WIRE_LEN) scope.name = sc.string();
              else if (sf === 2 && sw === WIRE_LEN) scope.version = sc.string();
              else return false;
              return true;
            });
          else if (f === 2 && w === WIRE_LEN) spans.push(protoSpan(ss, resource, scope));
          else return false;
          return true;
        });
      } else return false;
      return true;
    });
  }
  return spans;
}

// ---- JSON --------------------------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
/** Proto3 JSON accepts the lowerCamelCase name and the original snake_case one. */
const pick = (o: Obj, camel: string, snake: string): unknown => (camel in o ? o[camel] : o[snake]);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

function jsonNanos(v: unknown): bigint {
  if (typeof v === "bigint") return v; // a JSON number past 2^53 (exact-json.ts): a nanosecond time, exact
  if (typeof v === "number" && Number.isFinite(v)) return BigInt(Math.trunc(v));
  if (typeof v === "string" && /^\d+$/.test(v)) return BigInt(v);
  return 0n;
}

/** Ids are hex in OTLP/JSON; base64 (the generic proto3 mapping) is accepted too. */
function jsonId(v: unknown, bytes: number): string {
  const text = str(v);
  if (text.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(text)) return text.toLowerCase();
  if (text && /^[A-Za-z0-9+/=_-]+$/.test(text)) {
    const decoded = Buffer.from(text, "base64");
    if (decoded.length === bytes) return decoded.toString("hex");
  }
  return text.toLowerCase();
}

/** An int64 as proto3 JSON writes it (a decimal string, or a number), kept exact like a protobuf one. */
function jsonInt(v: unknown): unknown {
  if (typeof v === "bigint") return v;
  if (typeof v === "string" && /^\s*-?\d+\s*$/.test(v)) return exactInt(BigInt.asIntN(64, BigInt(v.trim())));
  return Number(v);
}

function jsonAnyValue(v: Obj): unknown {
  if ("stringValue" in v || "string_value" in v) return str(pick(v, "stringValue", "string_value"));
  if ("boolValue" in v || "bool_value" in v) return pick(v, "boolValue", "bool_value") === true;
  if ("intValue" in v || "int_value" in v) return jsonInt(pick(v, "intValue", "int_value"));
  if ("doubleValue" in v || "double_value" in v) return Number(pick(v, "doubleValue", "double_value"));
  if ("arrayValue" in v || "array_value" in v)
    return list(obj(pick(v, "arrayValue", "array_value")).values).map(jsonAnyValue);
  if ("kvlistValue" in v || "kvlist_value" in v)
    return jsonAttributes(obj(pick(v, "kvlistValue", "kvlist_value")).values);
  if ("bytesValue" in v || "bytes_value" in v) return str(pick(v, "bytesValue", "bytes_value"));
  return null;
}

function jsonAttributes(kvs: unknown): AttributeMap {
  const out: AttributeMap = {};
  for (const kv of list(kvs)) out[str(kv.key)] = jsonAnyValue(obj(kv.value));
  return out;
}

function decodeJson(text: string): OtlpSpan[] {
  let root: unknown;
  try {
    root = parseExactJson(text);
  } catch (err) {
    throw new OtlpDecodeError(`the body is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof root !== "object" || root === null || Array.isArray(root))
    throw new OtlpDecodeError("the body must be a JSON object (an ExportTraceServiceRequest)");
  const spans: OtlpSpan[] = [];
  for (const rs of list(pick(root as Obj, "resourceSpans", "resource_spans"))) {
    const resource = jsonAttributes(obj(rs.resource).attributes);
    for (const ss of list(pick(rs, "scopeSpans", "scope_spans"))) {
      const scopeObj = obj(ss.scope);
      const scope = { name: str(scopeObj.name), version: str(scopeObj.version) };
      for (const s of list(ss.spans)) {
        const status = obj(s.status);
        spans.push({
          traceId: jsonId(pick(s, "traceId", "trace_id"), 16),
          spanId: jsonId(pick(s, "spanId", "span_id"), 8),
          parentSpanId: jsonId(pick(s, "parentSpanId", "parent_span_id"), 8),
          name: str(s.name),
          kind: Number(s.kind ?? 0) || 0,
          startTimeUnixNano: jsonNanos(pick(s, "startTimeUnixNano", "start_time_unix_nano")),
          endTimeUnixNano: jsonNanos(pick(s, "endTimeUnixNano", "end_time_unix_nano")),
          attributes: jsonAttributes(s.attributes),
          events: list(s.events).map((e) => ({
            name: str(e.name),
            timeUnixNano: jsonNanos(pick(e, "timeUnixNano", "time_unix_nano")),
            attributes: jsonAttributes(e.attributes),
          })),
          status: { code: Number(status.code ?? 0) || 0, message: str(status.message) },
          resource,
          scope,
        });
      }
    }
  }
  return spans;
}

/** Decodes a (gunzipped) request body; throws {@link OtlpDecodeError} saying what is wrong with a bad one. */
export function decodeTraceRequest(body: Uint8Array, contentType: string): OtlpSpan[] {
  if (contentType.toLowerCase().includes("json")) return decodeJson(Buffer.from(body).toString("utf8"));
  try {
    return decodeProtobuf(body);
  } catch (err) {
    throw new OtlpDecodeError(`the body is not a valid protobuf ExportTraceServiceRequest: ${(err as Error).message}`);
  }
}
