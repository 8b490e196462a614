/**
 * `Call`: a handle on one recorded call (= one span) for feedback, scores and renames. Requests for a call made in
 * this process are queued behind the call's start (on the OTLP route: behind the export of its span), so the service
 * never sees feedback for a call it doesn't know, and are sent at once rather than at the next batch: the promise
 * settles when the service has answered — except for feedback on a call still running on the OTLP route, which
 * resolves at once with a receipt (otel/call-requests.ts says why), so awaiting it inside the call never hangs. A
 * request that breaks the service's feedback rules is rejected with a `ValidationError` before anything is queued;
 * one tracewire could not send rejects with a `NotSentError`; nothing here throws synchronously, `callById` included.
 */

import type { Span } from "@opentelemetry/api";
import { requireString } from "../api/base.js";
import { annotationName, checkFeedback, type FeedbackFields, runnableName } from "../api/feedback-rules.js";
import {
  annotationFeedbackType,
  callRef,
  MAX_NOTE_LENGTH,
  NOTE_FEEDBACK_TYPE,
  objectRef,
  opRef,
  REACTION_FEEDBACK_TYPE,
  runnableFeedbackType,
} from "../api/refs.js";
import type { JsonObject } from "../api/types/common.js";
import type { FeedbackCreateRes } from "../api/types/feedback.js";
import { refuseUnknownOptions } from "../config.js";
import { NotSentError, ValidationError } from "../errors.js";
import { spanRoute } from "../otel/span-data.js";
import { type ActiveProcessor, globalState } from "../otel/state.js";
import { describeAs } from "../own-objects.js";
import { serialize } from "./serialize.js";

/** Optional fields of a feedback record. */
export interface FeedbackOptions {
  /** Who gave the feedback (free text). */
  creator?: string;
  /** Ref of the annotation spec (for `wandb.annotation.*`). */
  annotationRef?: string;
  /** Ref of the scorer op or object (for `wandb.runnable.*`). */
  runnableRef?: string;
  /** Ref of the scorer's own call, when the score was produced by a traced call. */
  callRef?: string;
}

/** The fields of {@link FeedbackOptions}. */
const FEEDBACK_OPTIONS = [
  "creator",
  "annotationRef",
  "runnableRef",
  "callRef",
] as const satisfies readonly (keyof FeedbackOptions)[];

/** Longest op name, display name, thread id, call id or feedback type accepted, in characters. */
export const MAX_NAME_LENGTH = 1024;

function requireOptions(options: unknown): FeedbackOptions {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new ValidationError(
      `feedback options must be an object, got ${options === null ? "null" : Array.isArray(options) ? "an array" : typeof options}.`,
      "options",
    );
  }
  // A misspelt `creater` would otherwise be dropped without a word.
  refuseUnknownOptions("feedback options", options, FEEDBACK_OPTIONS);
  return options as FeedbackOptions;
}

/** Settles quietly when nobody awaits it (no unhandled rejection), and still rejects for those who do. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** Runs `start`; what it throws (a bad argument) becomes the rejection of the returned promise, never a throw. */
function attempt<T>(start: () => Promise<T>): Promise<T> {
  try {
    return handled(start());
  } catch (err) {
    return handled(Promise.reject(err));
  }
}

/** Where a call went: its span on the OTLP route (held weakly) makes requests about it wait for its export. */
export interface CallRoute {
  /** The span of a call sent by OTLP; requests for it are sent once the span has been exported. */
  otlpSpan?: object;
}

/** A recorded call. Get one from `getCurrentCall()`, an op's `invoke()`, `callOf(result)` or `callById(id)`. */
export class Call {
  /** The call id: the span's 16-hex span id. */
  readonly id: string;
  /** The trace id: the span's 32-hex trace id (may be empty for `callById` without one). */
  readonly traceId: string;
  /** `entity/project` the call belongs to (empty for a `callById` handle made while tracing was off). */
  readonly project: string;
  /** The call's span when it goes by OTLP: weak, so a handle kept with a result never keeps a span alive. */
  private readonly otlpSpan: WeakRef<object> | undefined;
  /** Why this handle can send nothing (a `callById` with a bad id, or without tracing): every request rejects with it. */
  readonly #broken: Error | undefined;

  /** @internal use `getCurrentCall()`, `callOf()` or `callById()`. */
  constructor(
    id: string,
    traceId: string,
    private readonly processor: ActiveProcessor | undefined,
    route: CallRoute = {},
    broken?: Error,
  ) {
    this.id = id;
    this.traceId = traceId;
    this.project = processor?.project ?? "";
    this.otlpSpan = route.otlpSpan ? new WeakRef(route.otlpSpan) : undefined;
    this.#broken = broken ?? (processor ? undefined : tracingOff());
  }

  /** The call's ref URI, `weave:///entity/project/call/<id>`, for `weave_ref` fields; empty for a broken handle. */
  get ref(): string {
    return this.#broken ? "" : callRef(this.project, this.id);
  }

  /** Adds an emoji reaction (`wandb.reaction.1`); `emoji` must be exactly one emoji. */
  react(emoji: string): Promise<FeedbackCreateRes> {
    return attempt(() => this.#send(REACTION_FEEDBACK_TYPE, { emoji: requireString(emoji, "emoji") }, {}));
  }

  /** Adds a note of 1–1024 characters (`wandb.note.1`). */
  note(text: string): Promise<FeedbackCreateRes> {
    return attempt(() =>
      this.#send(NOTE_FEEDBACK_TYPE, { note: requireString(text, "note", undefined, MAX_NOTE_LENGTH) }, {}),
    );
  }

  /**
   * Adds feedback of any type: `wandb.reaction.1`, `wandb.note.1`, `wandb.annotation.<name>`,
   * `wandb.runnable.<scorer>`, or a custom type outside the reserved `wandb.` namespace. For
   * `wandb.annotation.<name>`, `annotationRef` defaults to the spec `weave:///entity/project/object/<name>:latest`;
   * for `wandb.runnable.<name>`, `runnableRef` defaults as for {@link score}. A request that breaks one of the
   * service's feedback rules (api/feedback-rules.ts) is rejected with a `ValidationError` naming the rule, before
   * anything is queued.
   */
  feedback(type: string, payload: Record<string, unknown>, options: FeedbackOptions = {}): Promise<FeedbackCreateRes> {
    return attempt(() => this.#send(type, payload, options));
  }

  /** Adds a human annotation `wandb.annotation.<name>` with `{value}` (`annotationRef` as in {@link feedback}). */
  annotate(name: string, value: unknown, options: FeedbackOptions = {}): Promise<FeedbackCreateRes> {
    return attempt(() =>
      this.#send(annotationFeedbackType(requireString(name, "annotation name")), { value }, requireOptions(options)),
    );
  }

  /**
   * Records a score as runnable feedback `wandb.runnable.<name>` with payload `{output: value}`. `runnableRef`
   * defaults to the scorer object `weave:///entity/project/object/<name>:latest`, or, when `callRef` (the scorer's
   * own call) is given, to the scorer op `weave:///entity/project/op/<name>:latest`.
   */
  score(name: string, value: unknown, options: FeedbackOptions = {}): Promise<FeedbackCreateRes> {
    return attempt(() => {
      requireString(name, "score name", undefined, MAX_NAME_LENGTH);
      objectRef(this.project, name); // the name becomes a ref segment: no "/", ":" or spaces
      return this.#send(runnableFeedbackType(name), { output: value }, requireOptions(options));
    });
  }

  /** Renames the call in the UI (`/call/update`). */
  setDisplayName(name: string): Promise<void> {
    return attempt(() => {
      const body = {
        project_id: this.project,
        call_id: this.id,
        display_name: requireString(name, "display name", undefined, MAX_NAME_LENGTH),
      };
      // Portable mode: the service does not know a running call before its span is exported, so the name rides on
      // the span itself as `wandb.display_name`.
      const span = this.otlpSpan?.deref() as Span | undefined;
      // Set on the span while its export is still to come: not once shutdown has sent it (route `closed`) or the
      // processor has stopped (the span would be dropped), where the request rejects as every other one does.
      if (
        span?.isRecording() &&
        spanRoute(span) === "otlp" &&
        this.processor &&
        globalState().live.has(this.processor)
      ) {
        span.setAttribute("wandb.display_name", body.display_name);
        return Promise.resolve();
      }
      return this.#enqueue("/call/update", body, true).then(() => undefined);
    });
  }

  /** Checks and builds one feedback record, then queues it. Throws `ValidationError` before queueing anything. */
  #send(type: string, payload: Record<string, unknown>, options: FeedbackOptions): Promise<FeedbackCreateRes> {
    const processor = this.#live();
    requireString(type, "feedback type", undefined, MAX_NAME_LENGTH);
    requireOptions(options);
    if (payload === null || typeof payload !== "object" || Array.isArray(payload)) {
      throw new ValidationError(
        `feedback payload must be an object, got ${payload === null ? "null" : Array.isArray(payload) ? "an array" : typeof payload}.`,
        "payload",
      );
    }
    const body: JsonObject = {
      project_id: this.project,
      weave_ref: this.ref,
      feedback_type: type,
      payload: serialize(payload, processor.payload.limits) as JsonObject,
    };
    if (options.creator !== undefined) body.creator = requireString(options.creator, "creator");
    const annotation = annotationName(type);
    const runnable = runnableName(type);
    const callRefOption = options.callRef === undefined ? undefined : requireString(options.callRef, "callRef");
    if (options.annotationRef !== undefined)
      body.annotation_ref = requireString(options.annotationRef, "annotationRef");
    else if (annotation) body.annotation_ref = objectRef(this.project, annotation);
    if (options.runnableRef !== undefined) body.runnable_ref = requireString(options.runnableRef, "runnableRef");
    else if (runnable)
      body.runnable_ref = callRefOption ? opRef(this.project, runnable) : objectRef(this.project, runnable);
    if (callRefOption !== undefined) body.call_ref = callRefOption;
    checkFeedback(body as unknown as FeedbackFields);
    // Used only while the call runs on the OTLP route: the feedback can reach the service only after the call's span
    // is exported, so the promise resolves at once with what the service will store — under an id chosen here.
    const receipt = (): FeedbackCreateRes => {
      const id = globalThis.crypto.randomUUID();
      body.id = id;
      return { id, created_at: new Date().toISOString(), wb_user_id: "", payload: body.payload as JsonObject };
    };
    return this.#enqueue("/feedback/create", body, false, receipt) as Promise<FeedbackCreateRes>;
  }

  #enqueue(path: string, body: JsonObject, replaySafe = false, receipt?: () => unknown): Promise<unknown> {
    const processor = this.#live();
    const after = this.otlpSpan ? { span: this.otlpSpan.deref(), ...(receipt && { receipt }) } : undefined;
    return processor.enqueueRequest(path, body, replaySafe, after);
  }

  /** The processor requests go to; throws (into a rejection, see `attempt`) what makes this handle broken. */
  #live(): ActiveProcessor {
    if (this.#broken || !this.processor) throw this.#broken ?? tracingOff();
    return this.processor;
  }
}

const tracingOff = () =>
  new NotSentError(
    "tracing-off",
    "callById needs tracing to be set up: call init() (with tracing on) or create a TracewireSpanProcessor before callById(); nothing was sent.",
  );

/**
 * A handle on a call recorded earlier or by another process, by its id, for feedback and scores. Needs tracing to
 * be set up (`init()` or a `TracewireSpanProcessor`) in this process. Never throws: with a malformed id or trace id
 * the handle's requests reject with a `ValidationError`, and without tracing with a `NotSentError` (`tracing-off`).
 */
export function callById(callId: string, traceId = ""): Call {
  const processor = globalState().active;
  try {
    requireString(callId, "callId", undefined, MAX_NAME_LENGTH);
    if (typeof traceId !== "string") {
      throw new ValidationError(
        `traceId must be a string (32 hex digits, or empty), got ${typeof traceId}.`,
        "traceId",
      );
    }
    if (processor) callRef(processor.project, callId); // the id becomes a ref segment: no "/" or spaces
    return new Call(callId, traceId, processor);
  } catch (err) {
    const id = typeof callId === "string" ? callId : "";
    return new Call(id, typeof traceId === "string" ? traceId : "", processor, {}, err as Error);
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(Call, "Call", (c) => ({ id: c.id, trace_id: c.traceId, ref: c.ref }));
