/**
 * A loopback double of the tracing service's write path, strict like the real one: `/call/upsert_batch`,
 * `/call/start`, `/call/end`, their v2 forms for project `acme/demo` (`calls/complete`, `call/start`, `call/end`),
 * `/call/update`, `/feedback/create` and `/otel/v1/traces` (protobuf or JSON, gzip).
 * It keeps what it accepted (calls by id, OTLP spans, feedback) and can be told to misbehave: answer a status,
 * refuse bodies over a size, drop connections, or hang (read the request, never answer).
 */
import type { ServerResponse } from "node:http";
import { allSpans, type DecodedSpan, decodeTraceRequest, encodeExportResponse } from "./otlp.js";
import { type RecordedRequest, TestServer } from "./server.js";

export interface StoredCall {
  start?: Record<string, unknown>;
  end?: Record<string, unknown>;
  /** How many start / end records arrived for this id (duplicates show up here). */
  starts: number;
  ends: number;
  /** Order in which the start and end arrived, across all calls. */
  startSeq?: number;
  endSeq?: number;
}

/** A status answer, a reset connection, or `"hang"`: the request is read and never answered (see {@link TracingDouble.releaseHung}). */
export type Fault = { status: number; body?: unknown; headers?: Record<string, string> } | "reset" | "hang";

const START_FIELDS = new Set([
  "project_id",
  "id",
  "trace_id",
  "parent_id",
  "op_name",
  "display_name",
  "thread_id",
  "turn_id",
  "started_at",
  "attributes",
  "inputs",
  "wb_run_id",
  "wb_run_step",
]);
const END_FIELDS = new Set(["project_id", "id", "ended_at", "output", "exception", "summary", "wb_run_step_end"]);

export class TracingDouble {
  readonly calls = new Map<string, StoredCall>();
  readonly spans: DecodedSpan[] = [];
  readonly feedback: Record<string, unknown>[] = [];
  readonly updates: Record<string, unknown>[] = [];
  /**
   * Arrival facts for each entry of {@link updates}, same index: the arrival order (same counter as `startSeq`,
   * `endSeq` and feedback `_seq`) and whether the target call's start had arrived before.
   */
  readonly updateArrivals: { seq: number; callStartedBefore: boolean }[] = [];
  /** OTLP request bodies as received (content type, gzip), for encoding checks. */
  readonly otlpRequests: RecordedRequest[] = [];
  /** Faults to apply, per path, one per request, in order. */
  private readonly faults = new Map<string, Fault[]>();
  /** Every request to these paths fails with this fault while set. */
  private readonly outages = new Map<string, Fault>();
  private seq = 0;
  /** Largest accepted `/call/upsert_batch` body; larger ones get 413. */
  maxBatchBytes = Number.POSITIVE_INFINITY;
  /** Largest accepted `/otel/v1/traces` body (after gunzip); larger ones get 413. */
  maxOtlpBytes = Number.POSITIVE_INFINITY;
  /** Requests held open by a `"hang"` fault and not released yet. */
  private readonly hung = new Set<ServerResponse>();
  /** How many requests a `"hang"` fault has held open so far (released ones included). */
  hangs = 0;
  /** When set, the next OTLP answer carries this partial_success. */
  partialSuccess: { rejectedSpans: number; errorMessage: string } | undefined;
  /** When false, `/call/upsert_batch` answers 404 (an older service). */
  supportsBatch = true;
  /**
   * When true, the project takes complete calls only, as the hosted service does for a project that holds calls
   * written through `/v2/{entity}/{project}/calls/complete`: v1 call writes answer 400 `CALLS_COMPLETE_MODE_REQUIRED`.
   * The v2 writes (`calls/complete`, `call/start`, `call/end` under `/v2/acme/demo`) are accepted either way.
   */
  completeOnly = false;
  /** The number of records of each accepted `/v2/acme/demo/calls/complete` request, in order. */
  readonly completeBatches: number[] = [];
  /**
   * When set, a call start with this `op_name` is invalid: any request carrying it (a whole `/call/upsert_batch`,
   * or a `/call/start`) answers 422, like a strict service rejecting the whole request on one bad item. The ids of
   * such starts are remembered, and an end for one of them is invalid too (the service does not know that call).
   */
  rejectOpName: string | undefined;
  /** Ids of call starts refused because of {@link rejectOpName}. */
  readonly rejectedIds = new Set<string>();
  /**
   * Every answer that completed (injected faults included; resets excluded), in order. `bytes` is the request body
   * size (after gunzip) for `/call/upsert_batch`, 0 elsewhere.
   */
  readonly answers: { path: string; status: number; bytes: number }[] = [];

  private constructor(readonly server: TestServer) {}

  static async start(): Promise<TracingDouble> {
    const double = new TracingDouble(await TestServer.start());
    double.install();
    return double;
  }

  get url(): string {
    return this.server.url;
  }

  /** Queues faults for the next requests to `path`. */
  fail(path: string, ...faults: Fault[]): void {
    this.faults.set(path, [...(this.faults.get(path) ?? []), ...faults]);
  }

  /** Makes every request to `paths` fail with `fault` until {@link recover}. */
  down(paths: string[], fault: Fault = "reset"): void {
    for (const path of paths) this.outages.set(path, fault);
  }

  /** Ends every outage set by {@link down}. Requests already hanging stay hung (see {@link releaseHung}). */
  recover(): void {
    this.outages.clear();
  }

  /** Resets the connections of every hung request (a restarting service); the client sees a connection error. */
  releaseHung(): void {
    for (const res of this.hung) res.socket?.destroy();
    this.hung.clear();
  }

  close(): Promise<void> {
    this.releaseHung();
    return this.server.close();
  }

  /** The stored call with this id, or a loud failure. */
  call(id: string): StoredCall {
    const call = this.calls.get(id);
    if (!call) throw new Error(`no call ${id}; have ${[...this.calls.keys()].join(", ")}`);
    return call;
  }

  /** Calls recorded under `op_name`, in the order their starts arrived. */
  callsNamed(opName: string): StoredCall[] {
    return [...this.calls.values()]
      .filter((c) => c.start?.op_name === opName)
      .sort((a, b) => (a.startSeq ?? 0) - (b.startSeq ?? 0));
  }

  /** Every request body received so far (after gunzip), as text, for "never reached the wire" checks. */
  wireText(): string {
    return this.server.requests.map((r) => r.body.toString("utf8")).join("\n");
  }

  /** Statuses answered on `path`, in order. */
  statuses(path: string): number[] {
    return this.answers.filter((a) => a.path === path).map((a) => a.status);
  }

  private applyFault(path: string, res: ServerResponse, bytes = 0): boolean {
    // Every handler starts here, so this is the one place to log what each request was answered.
    res.once("finish", () => this.answers.push({ path, status: res.statusCode, bytes }));
    const fault = this.outages.get(path) ?? this.faults.get(path)?.shift();
    if (!fault) return false;
    if (fault === "reset") res.socket?.destroy();
    else if (fault === "hang") {
      this.hangs++;
      this.hung.add(res);
      res.once("close", () => this.hung.delete(res));
    } else {
      res.writeHead(fault.status, { "content-type": "application/json", ...fault.headers });
      res.end(JSON.stringify(fault.body ?? { reason: `injected ${fault.status}` }));
    }
    return true;
  }

  private install(): void {
    const json = (res: ServerResponse, status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const invalid = (res: ServerResponse, loc: (string | number)[], msg: string) =>
      json(res, 422, { detail: [{ loc, msg, type: "value_error" }] });

    const acceptStart = (start: unknown, loc: (string | number)[]): string | undefined => {
      if (!isRecord(start)) return "start must be an object";
      for (const key of Object.keys(start))
        if (!START_FIELDS.has(key)) return `${loc.join(".")}.${key}: extra fields not permitted`;
      for (const key of ["project_id", "id", "trace_id", "op_name", "started_at"]) {
        if (typeof start[key] !== "string") return `${loc.join(".")}.${key}: field required`;
      }
      if (!isRecord(start.attributes) || !isRecord(start.inputs))
        return `${loc.join(".")}: attributes and inputs must be objects`;
      return undefined;
    };
    const acceptEnd = (end: unknown, loc: (string | number)[]): string | undefined => {
      if (!isRecord(end)) return "end must be an object";
      for (const key of Object.keys(end))
        if (!END_FIELDS.has(key)) return `${loc.join(".")}.${key}: extra fields not permitted`;
      for (const key of ["project_id", "id", "ended_at"])
        if (typeof end[key] !== "string") return `${loc.join(".")}.${key}: field required`;
      if (!isRecord(end.summary)) return `${loc.join(".")}.summary: field required`;
      return undefined;
    };
    /** A reason when `rejectOpName` makes this start or end invalid. */
    const poisoned = (kind: "start" | "end", record: Record<string, unknown>): string | undefined => {
      if (this.rejectOpName === undefined) return undefined;
      if (kind === "start" && record.op_name === this.rejectOpName) {
        this.rejectedIds.add(String(record.id));
        return `op_name ${this.rejectOpName} is not accepted`;
      }
      if (kind === "end" && this.rejectedIds.has(String(record.id))) return `unknown call ${String(record.id)}`;
      return undefined;
    };
    const store = (kind: "start" | "end", record: Record<string, unknown>) => {
      const id = record.id as string;
      const call = this.calls.get(id) ?? { starts: 0, ends: 0 };
      if (kind === "start") {
        call.start = record;
        call.starts++;
        call.startSeq ??= this.seq++;
      } else {
        call.end = record;
        call.ends++;
        call.endSeq ??= this.seq++;
      }
      this.calls.set(id, call);
    };

    const refuseV1 = (res: ServerResponse): boolean => {
      if (!this.completeOnly) return false;
      const message = "This project stores complete calls: write them through /v2/{entity}/{project}/calls/complete.";
      json(res, 400, { error_code: "CALLS_COMPLETE_MODE_REQUIRED", message });
      return true;
    };

    this.server.on("POST", "/v2/acme/demo/calls/complete", (req, res) => {
      if (this.applyFault(req.path, res, req.body.length)) return;
      if (req.body.length > this.maxBatchBytes) return json(res, 413, { reason: "Request too large" });
      const body = req.json;
      if (!isRecord(body) || !Array.isArray(body.batch) || Object.keys(body).length !== 1) {
        return invalid(res, ["body"], "expected exactly {batch: [...]}");
      }
      const halves: { start: Record<string, unknown>; end: Record<string, unknown> }[] = [];
      for (const [i, call] of body.batch.entries()) {
        if (!isRecord(call)) return invalid(res, ["body", "batch", i], "bad item");
        const start = Object.fromEntries(Object.entries(call).filter(([key]) => START_FIELDS.has(key)));
        const end = Object.fromEntries(Object.entries(call).filter(([key]) => END_FIELDS.has(key)));
        const extra = Object.keys(call).find((key) => !START_FIELDS.has(key) && !END_FIELDS.has(key));
        const problem =
          (extra === undefined ? undefined : `body.batch.${i}.${extra}: extra fields not permitted`) ??
          acceptStart(start, ["body", "batch", i]) ??
          acceptEnd(end, ["body", "batch", i]) ??
          poisoned("start", start);
        if (problem) return invalid(res, ["body", "batch", i], problem);
        halves.push({ start, end });
      }
      for (const { start, end } of halves) {
        store("start", start);
        store("end", end);
      }
      this.completeBatches.push(halves.length);
      json(res, 200, {});
    });

    this.server.on("POST", "/call/upsert_batch", (req, res) => {
      if (this.applyFault(req.path, res, req.body.length)) return;
      if (refuseV1(res)) return;
      if (!this.supportsBatch) return json(res, 404, { reason: "Not Found" });
      if (req.body.length > this.maxBatchBytes) return json(res, 413, { reason: "Request too large" });
      const body = req.json;
      if (!isRecord(body) || !Array.isArray(body.batch) || Object.keys(body).length !== 1) {
        return invalid(res, ["body"], "expected exactly {batch: [...]}");
      }
      // Validate everything first: the real service rejects the whole request on one bad item.
      for (const [i, item] of body.batch.entries()) {
        if (!isRecord(item) || !isRecord(item.req)) return invalid(res, ["body", "batch", i], "bad item");
        const problem =
          item.mode === "start"
            ? acceptStart(item.req.start, ["body", "batch", i, "req", "start"])
            : item.mode === "end"
              ? acceptEnd(item.req.end, ["body", "batch", i, "req", "end"])
              : "mode must be start or end";
        if (problem) return invalid(res, ["body", "batch", i], problem);
      }
      for (const [i, item] of body.batch.entries()) {
        const { mode, req: inner } = item as { mode: "start" | "end"; req: Record<string, Record<string, unknown>> };
        const problem = poisoned(mode, inner[mode]!);
        if (problem) return invalid(res, ["body", "batch", i], problem);
      }
      const results = body.batch.map((item) => {
        const { mode, req: inner } = item as { mode: "start" | "end"; req: Record<string, Record<string, unknown>> };
        const record = inner[mode]!;
        store(mode, record);
        return mode === "start" ? { id: record.id, trace_id: record.trace_id } : {};
      });
      json(res, 200, { res: results });
    });

    // `/call/start` and `/call/end`, and their v2 forms (which a complete-only project takes).
    for (const [kind, prefix] of [
      ["start", ""],
      ["end", ""],
      ["start", "/v2/acme/demo"],
      ["end", "/v2/acme/demo"],
    ] as const) {
      this.server.on("POST", `${prefix}/call/${kind}`, (req, res) => {
        if (this.applyFault(req.path, res)) return;
        if (prefix === "" && refuseV1(res)) return;
        const body = req.json as Record<string, unknown>;
        const problem =
          kind === "start" ? acceptStart(body?.start, ["body", "start"]) : acceptEnd(body?.end, ["body", "end"]);
        if (problem) return invalid(res, ["body", kind], problem);
        const record = body[kind] as Record<string, unknown>;
        const poison = poisoned(kind, record);
        if (poison) return invalid(res, ["body", kind], poison);
        store(kind, record);
        json(res, 200, kind === "start" ? { id: record.id, trace_id: record.trace_id } : {});
      });
    }

    this.server.on("POST", "/feedback/create", (req, res) => {
      if (this.applyFault(req.path, res)) return;
      const body = req.json as Record<string, unknown>;
      for (const key of ["project_id", "weave_ref", "feedback_type", "payload"]) {
        if (body?.[key] === undefined) return invalid(res, ["body", key], "field required");
      }
      const target = String(body.weave_ref).split("/").pop()!;
      const id = `fb-${this.feedback.length + 1}`;
      this.feedback.push({
        ...body,
        _seq: this.seq++,
        // Known natively (its start arrived) or by OTLP (its span arrived).
        _callStartedBefore: this.calls.get(target)?.start !== undefined || this.spans.some((s) => s.spanId === target),
      });
      json(res, 200, { id, created_at: new Date().toISOString(), wb_user_id: "user", payload: body.payload });
    });

    this.server.on("POST", "/call/update", (req, res) => {
      if (this.applyFault(req.path, res)) return;
      const update = req.json as Record<string, unknown>;
      this.updates.push(update);
      this.updateArrivals.push({
        seq: this.seq++,
        callStartedBefore: this.calls.get(String(update?.call_id))?.start !== undefined,
      });
      json(res, 200, {});
    });

    this.server.on("POST", "/otel/v1/traces", (req, res) => {
      if (this.applyFault(req.path, res)) return;
      if (req.body.length > this.maxOtlpBytes) return json(res, 413, { reason: "Request too large" });
      this.otlpRequests.push(req);
      const contentType = req.headers["content-type"] ?? "";
      const decoded = decodeTraceRequest(req.body, contentType);
      this.spans.push(...allSpans(decoded));
      const partial = this.partialSuccess;
      this.partialSuccess = undefined;
      res.writeHead(200, {
        "content-type": contentType.includes("json") ? "application/json" : "application/x-protobuf",
      });
      res.end(partial ? Buffer.from(encodeExportResponse(partial, contentType)) : undefined);
    });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
