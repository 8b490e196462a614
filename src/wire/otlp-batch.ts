/**
 * OTLP requests assembled from spans encoded as they ended.
 *
 * The OTLP route encodes each span in `onEnd` (its protobuf `Span` message, or its OTLP/JSON object as UTF-8) into
 * an arena (arena.ts) and queues only that slice. Holding the spans themselves until their batch is sent kept every
 * span's objects (attributes, ids, times, events) alive across several young-generation collections, and promoting
 * them was the largest single cost of the route (bench/NOTES.md).
 *
 * At export, spans are grouped by resource (object identity) and instrumentation scope (name, version, schemaUrl)
 * and the `ExportTraceServiceRequest` is written around the encoded spans, copied as they are.
 */
import type { InstrumentationScope } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describeAs } from "../own-objects.js";
import type { KeyRedactor } from "../secrets.js";
import { ArenaPool, type Slice } from "./arena.js";
import type { ByteWriter } from "./byte-writer.js";
import { JsonWriter } from "./json-writer.js";
import { scopeAttributes, writeAttributes, writeSpan } from "./otlp-encode.js";
import { writeJsonAttributes, writeJsonSpan } from "./otlp-json.js";
import { ProtobufWriter } from "./protobuf-writer.js";

/** The resource and instrumentation scope a span was recorded under. */
export interface SpanOrigin {
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
}

/**
 * One ended span, encoded: the bytes `buf[start, end)`, in an arena shared with spans encoded around it. Protobuf:
 * its `ScopeSpans.spans` field (tag, length and `Span` message). JSON: `,` and its span object.
 */
export interface EncodedSpan extends Slice {
  readonly origin: SpanOrigin;
}

/** Encodes spans as they end, and assembles requests from them. One per exporter. */
export interface SpanBatchEncoder {
  /** Encodes one span; with a `redactor`, its attributes are written as they may leave the process. */
  encode(span: ReadableSpan, redactor?: KeyRedactor): EncodedSpan;
  /**
   * The `ExportTraceServiceRequest` body. With `reuse`, a view of the encoder's own buffer, valid until the next
   * such call (no copy); without, a buffer of its own.
   */
  request(spans: readonly EncodedSpan[], reuse?: boolean): Uint8Array;
}

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

/**
 * Copies encoded spans into `w`, one copy per run of spans that lie next to each other in the same buffer;
 * `skip` bytes of the first span are left out (the JSON separator before the first span of an array).
 */
export function writeRuns(w: ByteWriter, spans: readonly Slice[], skip: number): void {
  let buf: Uint8Array | undefined;
  let start = 0;
  let end = 0;
  for (const span of spans) {
    if (span.buf === buf && span.start === end) {
      end = span.end;
      continue;
    }
    if (buf) w.raw(buf, start, end);
    buf = span.buf;
    start = span === spans[0] ? span.start + skip : span.start;
    end = span.end;
  }
  if (buf) w.raw(buf, start, end);
}

/** Encodes each ended span into an arena (see arena.ts); subclasses write the span and the request. */
abstract class ArenaEncoder<W extends ByteWriter> implements SpanBatchEncoder {
  private readonly origins = new Origins();
  private readonly arenas: ArenaPool<W>;
  protected writer: W;

  constructor(
    private readonly newWriter: (size?: number) => W,
    /** String attribute values longer than this are cut (see `writeSpan`). */
    protected readonly maxAttributeValueLength = Number.POSITIVE_INFINITY,
  ) {
    this.arenas = new ArenaPool(newWriter);
    this.writer = newWriter();
  }

  protected abstract writeSpan(w: W, span: ReadableSpan, redactor: KeyRedactor | undefined): void;
  protected abstract writeRequest(w: W, groups: ResourceGroup[]): void;

  encode(span: ReadableSpan, redactor?: KeyRedactor): EncodedSpan {
    const origin = this.origins.of(span);
    const w = this.arenas.writer();
    const start = w.pos;
    try {
      this.writeSpan(w, span, redactor);
    } catch (err) {
      w.pos = start;
      throw err;
    }
    return { origin, buf: w.buf, start, end: w.pos, arena: this.arenas.claim() };
  }

  request(spans: readonly EncodedSpan[], reuse = false): Uint8Array {
    const w = reuse ? this.writer : this.newWriter();
    w.reset();
    this.writeRequest(w, group(spans));
    const body = w.buf.subarray(0, w.pos);
    if (reuse && w.buf.length > MAX_RETAINED_BUFFER) this.writer = this.newWriter();
    return body;
  }
}

/** Binary protobuf (`Content-Type: application/x-protobuf`). */
export class ProtoBatchEncoder extends ArenaEncoder<ProtobufWriter> {
  constructor(maxAttributeValueLength?: number) {
    super((size) => new ProtobufWriter(size), maxAttributeValueLength);
  }

  protected writeSpan(w: ProtobufWriter, span: ReadableSpan, redactor: KeyRedactor | undefined): void {
    writeSpan(w, span, this.maxAttributeValueLength, redactor);
  }

  protected writeRequest(w: ProtobufWriter, groups: ResourceGroup[]): void {
    for (const { resource, scopes } of groups) {
      const rs = w.startMessage(1); // ExportTraceServiceRequest.resource_spans = 1
      const res = w.startMessage(1); // ResourceSpans.resource = 1
      writeAttributes(w, 1, resource.attributes); // Resource.attributes = 1 (dropped count = 2 is always 0)
      w.endMessage(res);
      for (const { scope, spans } of scopes) {
        const ss = w.startMessage(2); // ResourceSpans.scope_spans = 2
        const sc = w.startMessage(1); // ScopeSpans.scope = 1 → InstrumentationScope
        w.stringField(1, scope.name); // name
        w.stringField(2, scope.version); // version
        writeAttributes(w, 3, scopeAttributes(scope)); // attributes
        w.endMessage(sc);
        writeRuns(w, spans, 0); // ScopeSpans.spans = 2, already encoded
        w.stringField(3, scope.schemaUrl); // ScopeSpans.schema_url = 3
        w.endMessage(ss);
      }
      w.stringField(3, resource.schemaUrl); // ResourceSpans.schema_url = 3
      w.endMessage(rs);
    }
  }
}

/** OTLP/JSON (`Content-Type: application/json`), UTF-8. */
export class JsonBatchEncoder extends ArenaEncoder<JsonWriter> {
  constructor(maxAttributeValueLength?: number) {
    super((size) => new JsonWriter(size), maxAttributeValueLength);
  }

  /** `,` then the span: spans are stored with the separator that goes before them in the `spans` array. */
  protected writeSpan(w: JsonWriter, span: ReadableSpan, redactor: KeyRedactor | undefined): void {
    w.ascii(",");
    writeJsonSpan(w, span, this.maxAttributeValueLength, redactor);
  }

  protected writeRequest(w: JsonWriter, groups: ResourceGroup[]): void {
    w.ascii('{"resourceSpans":[');
    for (let r = 0; r < groups.length; r++) {
      const { resource, scopes } = groups[r] as ResourceGroup;
      w.ascii(r > 0 ? ',{"resource":{"attributes":' : '{"resource":{"attributes":');
      writeJsonAttributes(w, resource.attributes);
      w.ascii(',"droppedAttributesCount":0},"scopeSpans":[');
      for (let s = 0; s < scopes.length; s++) {
        const { scope, spans } = scopes[s] as ScopeGroup;
        w.ascii(s > 0 ? ',{"scope":{"name":' : '{"scope":{"name":');
        w.string(scope.name);
        if (scope.version) {
          w.ascii(',"version":');
          w.string(scope.version);
        }
        const attributes = scopeAttributes(scope);
        if (attributes) {
          w.ascii(',"attributes":');
          writeJsonAttributes(w, attributes);
        }
        w.ascii('},"spans":[');
        writeRuns(w, spans, 1);
        w.ascii("]");
        writeJsonSchemaUrl(w, scope.schemaUrl);
        w.ascii("}");
      }
      w.ascii("]");
      writeJsonSchemaUrl(w, resource.schemaUrl);
      w.ascii("}");
    }
    w.ascii("]}");
  }
}

/** `,"schemaUrl":"…"` when set (proto3 JSON leaves out empty strings). */
function writeJsonSchemaUrl(w: JsonWriter, url: string | undefined): void {
  if (!url) return;
  w.ascii(',"schemaUrl":');
  w.string(url);
}

/** Encodes spans as a binary-protobuf `ExportTraceServiceRequest` (for `Content-Type: application/x-protobuf`). */
export function encodeTraceRequestProto(spans: readonly ReadableSpan[]): Uint8Array {
  const encoder = new ProtoBatchEncoder();
  return encoder.request(spans.map((span) => encoder.encode(span)));
}

/** Encodes spans as an OTLP/JSON `ExportTraceServiceRequest` (for `Content-Type: application/json`), as UTF-8. */
export function encodeTraceRequestJson(spans: readonly ReadableSpan[]): Uint8Array {
  const encoder = new JsonBatchEncoder();
  return encoder.request(spans.map((span) => encoder.encode(span)));
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(ArenaEncoder, "ArenaEncoder");
describeAs(Origins, "Origins");
