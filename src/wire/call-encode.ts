/**
 * Call start and end records as the JSON the calls route sends, written into arenas (arena.ts) in `onStart` /
 * `onEnd`: `{"start":{…}}` or `{"end":{…}}`, which is both a `/call/upsert_batch` item's `req` and the whole body of
 * `/call/start` or `/call/end`. Encoding when the item is made lets the span's objects die young instead of being
 * promoted with the queue, and writing the fixed fields directly skips building a record object per call and a
 * generic `JSON.stringify` of it (bench/NOTES.md). Field for field the same records as span-to-call.ts describes.
 */
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { CallEnd, CallStart, CallSummary } from "../api/types/calls.js";
import type { LlmUsage } from "../api/types/common.js";
import { describeAs } from "../own-objects.js";
import { ArenaPool, type Slice } from "./arena.js";
import { JsonWriter, literal } from "./json-writer.js";
import {
  type CallEndData,
  type CallStartData,
  exceptionOf,
  genAiStartAttributes,
  isoTime,
  outcomeSummary,
  usageFromAttributes,
} from "./span-to-call.js";

/** A call start or end, encoded: `{"start":…}` / `{"end":…}` in `buf[start, end)`. */
export interface CallRecordItem extends Slice {
  readonly kind: "start" | "end";
  /** The call's id (for diagnostics). */
  readonly id: string;
}

const L = {
  start: literal('{"start":{"project_id":'),
  end: literal('{"end":{"project_id":'),
  id: literal(',"id":'),
  traceId: literal(',"trace_id":'),
  opName: literal(',"op_name":'),
  startedAt: literal(',"started_at":'),
  attributes: literal(',"attributes":'),
  inputs: literal(',"inputs":'),
  parentId: literal(',"parent_id":'),
  displayName: literal(',"display_name":'),
  threadId: literal(',"thread_id":'),
  turnId: literal(',"turn_id":'),
  endedAt: literal(',"ended_at":'),
  summary: literal(',"summary":'),
  output: literal(',"output":'),
  exception: literal(',"exception":'),
  close: literal("}}"),
  emptyObject: literal("{}"),
};

/**
 * One of the records' own small objects (attributes, summary) as the JSON `JSON.stringify` makes of it: written
 * straight into the arena when it is a plain tree, else through `JSON.stringify` (which may throw: the record is then
 * refused).
 */
function writeJson(w: JsonWriter, value: unknown): void {
  if (!w.plain(value)) w.json(JSON.stringify(value));
}

/**
 * A payload (the serializer's inputs or output tree) through the engine's own `JSON.stringify`: the same bytes as
 * {@link JsonWriter.plain} writes, in less CPU time once the tree carries text (a chat call's request and completion:
 * 3.4 µs against 4.3 on Node 24, 5.6 against 7.4 on Node 20; bench/NOTES.md). Returns false, having written nothing,
 * for a value `JSON.stringify` makes nothing of (undefined).
 */
function writePayload(w: JsonWriter, value: unknown): boolean {
  const text = JSON.stringify(value);
  if (text === undefined) return false;
  w.json(text);
  return true;
}

/** A call's start attributes: its GenAI request facts, then its own (which win); no merged copy when it has none. */
function startAttributes(spanAttributes: ReadableSpan["attributes"], own: CallStartData["attributes"]): object {
  const genAi = genAiStartAttributes(spanAttributes);
  for (const key in own) if (Object.hasOwn(own, key)) return { ...genAi, ...own };
  return genAi;
}

export class CallRecordEncoder {
  private readonly arenas = new ArenaPool((size) => new JsonWriter(size));
  private readonly projectJson: string;

  /** Encodes for `project` (`entity/project`). */
  constructor(project: string) {
    this.projectJson = JSON.stringify(project);
  }

  /**
   * The start record of a span (`data` is present for tracewire's own spans), or the error that made it
   * unencodable: such a record is refused alone, never blocking the queue.
   */
  start(span: ReadableSpan, data: CallStartData | undefined): CallRecordItem | Error {
    const context = span.spanContext();
    return this.encode("start", context.spanId, (w) => {
      w.literal(L.start);
      w.json(this.projectJson);
      w.literal(L.id);
      w.string(context.spanId);
      w.literal(L.traceId);
      w.string(context.traceId);
      w.literal(L.opName);
      w.string(data?.opName ?? span.name);
      w.literal(L.startedAt);
      w.string(isoTime(span.startTime));
      w.literal(L.attributes);
      // A GenAI call's request facts as the service would promote them; the call's own attributes win.
      writeJson(w, data ? startAttributes(span.attributes, data.attributes) : span.attributes);
      w.literal(L.inputs);
      if (!data || !writePayload(w, data.inputs)) w.literal(L.emptyObject);
      const parent = span.parentSpanContext?.spanId;
      if (parent) {
        w.literal(L.parentId);
        w.string(parent);
      }
      if (data?.displayName) {
        w.literal(L.displayName);
        w.string(data.displayName);
      }
      if (data?.threadId) {
        w.literal(L.threadId);
        w.string(data.threadId);
        const turn = data.turnId === "self" ? context.spanId : data.turnId;
        if (turn) {
          w.literal(L.turnId);
          w.string(turn);
        }
      }
      w.literal(L.close);
    });
  }

  /**
   * The end record of an ended span, or the error that made it unencodable. `usage` is its `summary.usage` (the
   * processor passes the usage rolled up from the call's descendants); by default the span's own.
   */
  end(
    span: ReadableSpan,
    data: CallEndData | undefined,
    usage: Record<string, LlmUsage> | undefined = data?.usage ?? usageFromAttributes(span.attributes),
  ): CallRecordItem | Error {
    const id = span.spanContext().spanId;
    return this.encode("end", id, (w) => {
      w.literal(L.end);
      w.json(this.projectJson);
      w.literal(L.id);
      w.string(id);
      w.literal(L.endedAt);
      w.string(isoTime(span.endTime));
      w.literal(L.summary);
      const summary: CallSummary = outcomeSummary(span.attributes);
      if (data?.cancelled !== undefined) summary.tracewire = { status: "cancelled", cancel_reason: data.cancelled };
      if (usage) summary.usage = usage;
      if (Object.keys(summary).length > 0) writeJson(w, summary);
      else w.literal(L.emptyObject);
      if (data && "output" in data) {
        const before = w.pos;
        w.literal(L.output);
        if (!writePayload(w, data.output)) w.pos = before;
      }
      const exception = data?.cancelled !== undefined ? undefined : (data?.exception ?? exceptionOf(span));
      if (exception !== undefined) {
        w.literal(L.exception);
        w.string(exception);
      }
      w.literal(L.close);
    });
  }

  /** A record built by hand (`{"start": record}` or `{"end": record}` as `JSON.stringify` writes it). */
  record(kind: "start", record: CallStart): CallRecordItem | Error;
  record(kind: "end", record: CallEnd): CallRecordItem | Error;
  record(kind: "start" | "end", record: CallStart | CallEnd): CallRecordItem | Error {
    return this.encode(kind, record.id ?? "", (w) => {
      const text = kind === "start" ? JSON.stringify({ start: record }) : JSON.stringify({ end: record });
      w.json(text);
    });
  }

  private encode(kind: "start" | "end", id: string, write: (w: JsonWriter) => void): CallRecordItem | Error {
    const w = this.arenas.writer();
    const start = w.pos;
    try {
      write(w);
    } catch (err) {
      w.pos = start;
      return err instanceof Error ? err : new Error(String(err));
    }
    return { kind, id, buf: w.buf, start, end: w.pos, arena: this.arenas.claim() };
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(CallRecordEncoder, "CallRecordEncoder");
