/**
 * OTLP requests assembled from spans encoded as they ended.
 *
 * With protobuf (the default), the OTLP route encodes each span in `onEnd` (its own `Span` message) and queues only
 * those bytes. Holding the spans themselves until their batch is sent kept every span's objects (attributes, ids,
 * times, events) alive across several young-generation collections, and promoting them was the largest single cost
 * of the route (bench/NOTES.md); encoded, a span is one slice of a shared buffer.
 *
 * At export, spans are grouped by resource (object identity) and instrumentation scope (name, version, schemaUrl)
 * and the `ExportTraceServiceRequest` is written around the encoded spans, copied as they are.
 */
import type { InstrumentationScope } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { jsonAttributes, jsonSpan, orUndefined, scopeAttributes, writeAttributes, writeSpan } from "./otlp-encode.js";
import { ProtobufWriter } from "./protobuf-writer.js";

/** The resource and instrumentation scope a span was recorded under. */
export interface SpanOrigin {
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
}

/**
 * One ended span, ready for a request. Protobuf: the bytes `buf[start, end)` are its `ScopeSpans.spans` field (tag,
 * length and `Span` message), in a buffer shared with spans encoded around it. JSON: `span` is the span itself.
 */
export interface EncodedSpan {
  readonly origin: SpanOrigin;
  readonly buf: Uint8Array;
  readonly start: number;
  readonly end: number;
  readonly span: ReadableSpan | undefined;
}

/** Encodes spans as they end, and assembles requests from them. One per exporter. */
export interface SpanBatchEncoder {
  encode(span: ReadableSpan): EncodedSpan;
  /** The `ExportTraceServiceRequest` body: bytes for protobuf, the JSON text for JSON. */
  request(spans: readonly EncodedSpan[]): Uint8Array | string;
}

const EMPTY: Uint8Array = new Uint8Array(0);
/** Encoded spans share buffers of this size; a new one starts when less than `ARENA_SLACK` bytes are left. */
const ARENA_SIZE = 64 * 1024;
const ARENA_SLACK = 4 * 1024;
/** Request buffers that grew past this are not kept for the next request. */
const MAX_RETAINED_BUFFER = 4 * 1024 * 1024;

/** The same `SpanOrigin` object for every span of a resource + scope pair (so grouping is by identity). */
class Origins {
  private last: SpanOrigin | undefined;
  private readonly byResource = new WeakMap<Resource, WeakMap<InstrumentationScope, SpanOrigin>>();

  of(span: ReadableSpan): SpanOrigin {
    const { resource, instrumentationScope: scope } = span;
    const last = this.last;
    if (last && last.scope === scope && last.resource === resource) return last;
    let scopes = this.byResource.get(resource);
    if (!scopes) {
      scopes = new WeakMap();
      this.byResource.set(resource, scopes);
    }
    let origin = scopes.get(scope);
    if (!origin) {
      origin = { resource, scope };
      scopes.set(scope, origin);
    }
    this.last = origin;
    return origin;
  }
}

interface ScopeGroup {
  scope: InstrumentationScope;
  spans: EncodedSpan[];
}
interface ResourceGroup {
  resource: Resource;
  scopes: ScopeGroup[];
  /** Equal scopes held in distinct objects still merge (name + version + schemaUrl). */
  byKey: Map<string, ScopeGroup>;
}

/** Groups encoded spans by resource, then scope; spans keep their order within a group. */
function group(spans: readonly EncodedSpan[]): ResourceGroup[] {
  const resources = new Map<Resource, ResourceGroup>();
  const byOrigin = new Map<SpanOrigin, ScopeGroup>();
  for (const span of spans) {
    let scopeGroup = byOrigin.get(span.origin);
    if (!scopeGroup) {
      const { resource, scope } = span.origin;
      let resourceGroup = resources.get(resource);
      if (!resourceGroup) {
        resourceGroup = { resource, scopes: [], byKey: new Map() };
        resources.set(resource, resourceGroup);
      }
      const key = `${scope.name}\u0000${scope.version ?? ""}\u0000${scope.schemaUrl ?? ""}`;
      scopeGroup = resourceGroup.byKey.get(key);
      if (!scopeGroup) {
        scopeGroup = { scope, spans: [] };
        resourceGroup.byKey.set(key, scopeGroup);
        resourceGroup.scopes.push(scopeGroup);
      }
      byOrigin.set(span.origin, scopeGroup);
    }
    scopeGroup.spans.push(span);
  }
  return [...resources.values()];
}

/** Binary protobuf (`Content-Type: application/x-protobuf`). */
export class ProtoBatchEncoder implements SpanBatchEncoder {
  private readonly origins = new Origins();
  /** Where ended spans are written; its buffer is replaced (never reused) when nearly full. */
  private arena = new ProtobufWriter(ARENA_SIZE);
  private writer = new ProtobufWriter();

  encode(span: ReadableSpan): EncodedSpan {
    const origin = this.origins.of(span);
    let w = this.arena;
    if (w.buf.length - w.pos < ARENA_SLACK) w = this.arena = new ProtobufWriter(ARENA_SIZE);
    const start = w.pos;
    try {
      writeSpan(w, span);
    } catch (err) {
      w.pos = start;
      throw err;
    }
    // `buf` is read after writing: a span that outgrew the arena moved it (earlier spans keep the old buffer).
    return { origin, buf: w.buf, start, end: w.pos, span: undefined };
  }

  request(spans: readonly EncodedSpan[]): Uint8Array {
    const w = this.writer;
    w.reset();
    try {
      for (const { resource, scopes } of group(spans)) {
        const rs = w.startMessage(1); // ExportTraceServiceRequest.resource_spans = 1
        const res = w.startMessage(1); // ResourceSpans.resource = 1
        writeAttributes(w, 1, resource.attributes); // Resource.attributes = 1 (dropped count = 2 is always 0)
        w.endMessage(res);
        for (const { scope, spans: scopeSpans } of scopes) {
          const ss = w.startMessage(2); // ResourceSpans.scope_spans = 2
          const sc = w.startMessage(1); // ScopeSpans.scope = 1 → InstrumentationScope
          w.stringField(1, scope.name); // name
          w.stringField(2, scope.version); // version
          writeAttributes(w, 3, scopeAttributes(scope)); // attributes
          w.endMessage(sc);
          writeRuns(w, scopeSpans); // ScopeSpans.spans = 2, already encoded
          w.stringField(3, scope.schemaUrl); // ScopeSpans.schema_url = 3
          w.endMessage(ss);
        }
        w.stringField(3, resource.schemaUrl); // ResourceSpans.schema_url = 3
        w.endMessage(rs);
      }
      return w.finish();
    } finally {
      if (w.buf.length > MAX_RETAINED_BUFFER) this.writer = new ProtobufWriter();
    }
  }
}

/** Copies encoded spans into `w`, one copy per run of spans that lie next to each other in the same buffer. */
function writeRuns(w: ProtobufWriter, spans: readonly EncodedSpan[]): void {
  let buf: Uint8Array = EMPTY;
  let start = 0;
  let end = 0;
  for (const span of spans) {
    if (span.buf === buf && span.start === end) {
      end = span.end;
      continue;
    }
    if (end > start) w.raw(buf, start, end);
    ({ buf, start, end } = span);
  }
  if (end > start) w.raw(buf, start, end);
}

/**
 * OTLP/JSON (`Content-Type: application/json`); the request is the JSON text, written as UTF-8 by the transport.
 *
 * Unlike protobuf, JSON spans are encoded when their batch is sent: one `JSON.stringify` of the whole request
 * costs far less than one per span plus joining the texts (1.3× the route's CPU, measured with bench/ab.mjs),
 * which outweighs keeping the spans alive until then.
 */
export class JsonBatchEncoder implements SpanBatchEncoder {
  private readonly origins = new Origins();

  encode(span: ReadableSpan): EncodedSpan {
    return { origin: this.origins.of(span), buf: EMPTY, start: 0, end: 0, span };
  }

  request(spans: readonly EncodedSpan[]): string {
    const resourceSpans = group(spans).map(({ resource, scopes }) => ({
      resource: { attributes: jsonAttributes(resource.attributes), droppedAttributesCount: 0 },
      scopeSpans: scopes.map(({ scope, spans: scopeSpans }) => {
        const attributes = scopeAttributes(scope);
        return {
          scope: {
            name: scope.name,
            version: orUndefined(scope.version),
            attributes: attributes ? jsonAttributes(attributes) : undefined,
          },
          spans: scopeSpans.map((encoded) => jsonSpan(encoded.span as ReadableSpan)),
          schemaUrl: orUndefined(scope.schemaUrl),
        };
      }),
      schemaUrl: orUndefined(resource.schemaUrl),
    }));
    return JSON.stringify({ resourceSpans });
  }
}

/** Encodes spans as a binary-protobuf `ExportTraceServiceRequest` (for `Content-Type: application/x-protobuf`). */
export function encodeTraceRequestProto(spans: readonly ReadableSpan[]): Uint8Array {
  const encoder = new ProtoBatchEncoder();
  return encoder.request(spans.map((span) => encoder.encode(span)));
}

/** Encodes spans as an OTLP/JSON `ExportTraceServiceRequest` (for `Content-Type: application/json`), as text. */
export function encodeTraceRequestJson(spans: readonly ReadableSpan[]): string {
  const encoder = new JsonBatchEncoder();
  return encoder.request(spans.map((span) => encoder.encode(span)));
}
