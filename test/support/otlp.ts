/**
 * Test-side OTLP decoding, independent of tracewire's encoder: binary bodies go through protobufjs with the
 * hand-written schema in `otlp.proto`, JSON bodies through `JSON.parse`; both end in the same normalized shape
 * (hex ids, decimal-string timestamps, attributes as plain values). Also builds `ExportTraceServiceResponse`
 * bodies so fake servers can answer with `partial_success`.
 */
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";

const root = protobuf.loadSync(fileURLToPath(new URL("./otlp.proto", import.meta.url)));
const RequestType = root.lookupType("tracewire.test.otlp.ExportTraceServiceRequest");
const ResponseType = root.lookupType("tracewire.test.otlp.ExportTraceServiceResponse");

export interface DecodedEvent {
  timeUnixNano: string;
  name: string;
  attributes: Record<string, unknown>;
  droppedAttributesCount: number;
}

export interface DecodedLink {
  traceId: string;
  spanId: string;
  traceState: string;
  attributes: Record<string, unknown>;
  droppedAttributesCount: number;
  flags: number;
}

export interface DecodedSpan {
  traceId: string;
  spanId: string;
  /** Empty string for a root span. */
  parentSpanId: string;
  traceState: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, unknown>;
  droppedAttributesCount: number;
  events: DecodedEvent[];
  droppedEventsCount: number;
  links: DecodedLink[];
  droppedLinksCount: number;
  status: { code: number; message: string };
  flags: number;
}

export interface DecodedScopeSpans {
  scope: { name: string; version: string; attributes: Record<string, unknown> };
  schemaUrl: string;
  spans: DecodedSpan[];
}

export interface DecodedResourceSpans {
  resource: { attributes: Record<string, unknown>; droppedAttributesCount: number };
  schemaUrl: string;
  scopeSpans: DecodedScopeSpans[];
}

export interface DecodedTraceRequest {
  resourceSpans: DecodedResourceSpans[];
}

type Obj = Record<string, unknown>;

const isJson = (contentType: string): boolean => contentType.toLowerCase().includes("json");
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null ? (v as Obj) : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const num = (v: unknown): number => (v === undefined || v === null ? 0 : Number(v));

/** int64/fixed64 from a decimal string (protobufjs, or canonical JSON) or a JSON number. */
function int64String(v: unknown): string {
  if (typeof v === "number") return BigInt(v).toString();
  if (typeof v === "string" && v !== "") return BigInt(v).toString();
  return "0";
}

/** Ids: raw bytes from protobuf, case-insensitive hex from JSON; both come out as lower-case hex. */
function hexId(v: unknown): string {
  if (v instanceof Uint8Array) return Buffer.from(v).toString("hex");
  return str(v).toLowerCase();
}

function anyValue(v: Obj): unknown {
  if ("stringValue" in v) return str(v.stringValue);
  if ("boolValue" in v) return v.boolValue === true;
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return Number(v.doubleValue); // JSON may spell NaN/Infinity as strings
  if ("arrayValue" in v) return list(obj(v.arrayValue).values).map(anyValue);
  if ("kvlistValue" in v) return attributes(obj(v.kvlistValue).values);
  if ("bytesValue" in v)
    return v.bytesValue instanceof Uint8Array ? v.bytesValue : Buffer.from(str(v.bytesValue), "base64");
  return null;
}

function attributes(kvs: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list(kvs)) out[str(kv.key)] = anyValue(obj(kv.value));
  return out;
}

function normalizeSpan(s: Obj): DecodedSpan {
  const status = obj(s.status);
  return {
    traceId: hexId(s.traceId),
    spanId: hexId(s.spanId),
    parentSpanId: hexId(s.parentSpanId),
    traceState: str(s.traceState),
    name: str(s.name),
    kind: num(s.kind),
    startTimeUnixNano: int64String(s.startTimeUnixNano),
    endTimeUnixNano: int64String(s.endTimeUnixNano),
    attributes: attributes(s.attributes),
    droppedAttributesCount: num(s.droppedAttributesCount),
    events: list(s.events).map((e) => ({
      timeUnixNano: int64String(e.timeUnixNano),
      name: str(e.name),
      attributes: attributes(e.attributes),
      droppedAttributesCount: num(e.droppedAttributesCount),
    })),
    droppedEventsCount: num(s.droppedEventsCount),
    links: list(s.links).map((l) => ({
      traceId: hexId(l.traceId),
      spanId: hexId(l.spanId),
      traceState: str(l.traceState),
      attributes: attributes(l.attributes),
      droppedAttributesCount: num(l.droppedAttributesCount),
      flags: num(l.flags),
    })),
    droppedLinksCount: num(s.droppedLinksCount),
    status: { code: num(status.code), message: str(status.message) },
    flags: num(s.flags),
  };
}

/** Normalizes the camelCase object tree shared by OTLP/JSON and protobufjs's `toObject`. */
function normalize(request: Obj): DecodedTraceRequest {
  return {
    resourceSpans: list(request.resourceSpans).map((rs) => {
      const resource = obj(rs.resource);
      return {
        resource: {
          attributes: attributes(resource.attributes),
          droppedAttributesCount: num(resource.droppedAttributesCount),
        },
        schemaUrl: str(rs.schemaUrl),
        scopeSpans: list(rs.scopeSpans).map((ss) => {
          const scope = obj(ss.scope);
          return {
            scope: { name: str(scope.name), version: str(scope.version), attributes: attributes(scope.attributes) },
            schemaUrl: str(ss.schemaUrl),
            spans: list(ss.spans).map(normalizeSpan),
          };
        }),
      };
    }),
  };
}

/**
 * Decodes an `ExportTraceServiceRequest` body (already gunzipped) sent as `application/x-protobuf` or
 * `application/json` into a normalized structure.
 */
export function decodeTraceRequest(body: Uint8Array | string, contentType: string): DecodedTraceRequest {
  if (isJson(contentType)) {
    const text = typeof body === "string" ? body : Buffer.from(body).toString("utf8");
    return normalize(obj(JSON.parse(text)));
  }
  if (typeof body === "string") throw new Error("a protobuf body must be bytes");
  const message = RequestType.decode(body);
  return normalize(RequestType.toObject(message, { longs: String, enums: Number, arrays: true }));
}

/** Every span of a decoded request, in order. */
export function allSpans(decoded: DecodedTraceRequest): DecodedSpan[] {
  return decoded.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
}

/**
 * Builds an `ExportTraceServiceResponse` body with `partial_success` set, in protobuf or JSON (canonical
 * camelCase, int64 as a string; `snakeCase: true` spells the JSON keys `partial_success` / `rejected_spans` /
 * `error_message` instead).
 */
export function encodeExportResponse(
  partial: { rejectedSpans: number; errorMessage: string },
  contentType: string,
  options: { snakeCase?: boolean } = {},
): Uint8Array {
  const message = ResponseType.fromObject({ partialSuccess: partial });
  if (!isJson(contentType)) return ResponseType.encode(message).finish();
  const json = ResponseType.toObject(message, { longs: String, defaults: true });
  if (options.snakeCase) {
    const ps = obj(json.partialSuccess);
    const snake = { partial_success: { rejected_spans: ps.rejectedSpans, error_message: ps.errorMessage } };
    return Buffer.from(JSON.stringify(snake));
  }
  return Buffer.from(JSON.stringify(json));
}
