/**
 * `Call`: a handle on one recorded call (= one span) for feedback, scores and renames. Requests for a call made in
 * this process are queued behind the call's start, so the service never sees feedback for a call it doesn't know.
 */

import type { Span } from "@opentelemetry/api";
import { requireString } from "../api/base.js";
import {
  annotationFeedbackType,
  callRef,
  MAX_NOTE_LENGTH,
  NOTE_FEEDBACK_TYPE,
  opRef,
  REACTION_FEEDBACK_TYPE,
  runnableFeedbackType,
} from "../api/refs.js";
import type { JsonObject } from "../api/types/common.js";
import type { FeedbackCreateRes } from "../api/types/feedback.js";
import { TracewireError, ValidationError } from "../errors.js";
import { spanRoute } from "../otel/span-data.js";
import { type ActiveProcessor, globalState } from "../otel/state.js";
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

/** Longest op name, display name, thread id, call id or feedback type accepted, in characters. */
export const MAX_NAME_LENGTH = 1024;

const KNOWN_TYPES = /^wandb\.(reaction\.1|note\.1|annotation\.[^\s]+|runnable\.[^\s]+)$/;

function requireOptions(options: unknown): void {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new ValidationError(
      `feedback options must be an object, got ${options === null ? "null" : Array.isArray(options) ? "an array" : typeof options}.`,
      "options",
    );
  }
}

/** Settles quietly when nobody awaits it (no unhandled rejection), and still rejects for those who do. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** A recorded call. Get one from `getCurrentCall()`, an op's `invoke()`, `callOf(result)` or `callById(id)`. */
export class Call {
  /** The call id: the span's 16-hex span id. */
  readonly id: string;
  /** The trace id: the span's 32-hex trace id (may be empty for `callById` without one). */
  readonly traceId: string;
  /** `entity/project` the call belongs to. */
  readonly project: string;

  /** The call's span while this process may still be running it (weak: a handle never keeps a span alive). */
  private readonly span: WeakRef<Span> | undefined;

  /** @internal use `getCurrentCall()`, `callOf()` or `callById()`. */
  constructor(
    id: string,
    traceId: string,
    private readonly processor: ActiveProcessor,
    span?: Span,
  ) {
    this.id = id;
    this.traceId = traceId;
    this.project = processor.project;
    this.span = span && new WeakRef(span);
  }

  /** The call's ref URI, `weave:///entity/project/call/<id>`, for `weave_ref` fields. */
  get ref(): string {
    return callRef(this.project, this.id);
  }

  /** Adds an emoji reaction (`wandb.reaction.1`). */
  react(emoji: string): Promise<FeedbackCreateRes> {
    return this.feedback(REACTION_FEEDBACK_TYPE, { emoji: requireString(emoji, "emoji") });
  }

  /** Adds a note of 1–1024 characters (`wandb.note.1`). */
  note(text: string): Promise<FeedbackCreateRes> {
    return this.feedback(NOTE_FEEDBACK_TYPE, { note: requireString(text, "note", undefined, MAX_NOTE_LENGTH) });
  }

  /**
   * Adds feedback of any type: `wandb.reaction.1`, `wandb.note.1`, `wandb.annotation.<name>`,
   * `wandb.runnable.<scorer>`, or a custom type outside the reserved `wandb.` namespace.
   */
  feedback(type: string, payload: Record<string, unknown>, options: FeedbackOptions = {}): Promise<FeedbackCreateRes> {
    requireString(type, "feedback type", undefined, MAX_NAME_LENGTH);
    requireOptions(options);
    if (type.startsWith("wandb.") && !KNOWN_TYPES.test(type)) {
      throw new ValidationError(
        `Unknown feedback type ${JSON.stringify(type)}: the wandb. namespace holds wandb.reaction.1, wandb.note.1, wandb.annotation.<name> and wandb.runnable.<scorer>; use another prefix for custom types.`,
        "feedback_type",
      );
    }
    if (payload === null || typeof payload !== "object" || Array.isArray(payload)) {
      throw new ValidationError(
        `feedback payload must be an object, got ${Array.isArray(payload) ? "an array" : typeof payload}.`,
        "payload",
      );
    }
    const body: JsonObject = {
      project_id: this.project,
      weave_ref: this.ref,
      feedback_type: type,
      payload: serialize(payload) as JsonObject,
    };
    if (options.creator !== undefined) body.creator = requireString(options.creator, "creator");
    if (options.annotationRef !== undefined)
      body.annotation_ref = requireString(options.annotationRef, "annotationRef");
    if (options.runnableRef !== undefined) body.runnable_ref = requireString(options.runnableRef, "runnableRef");
    if (options.callRef !== undefined) body.call_ref = requireString(options.callRef, "callRef");
    return handled(this.processor.enqueueRequest("/feedback/create", body) as Promise<FeedbackCreateRes>);
  }

  /** Adds a human annotation `wandb.annotation.<name>` with `{value}`. */
  annotate(name: string, value: unknown, options: FeedbackOptions = {}): Promise<FeedbackCreateRes> {
    requireOptions(options);
    return this.feedback(annotationFeedbackType(requireString(name, "annotation name")), { value }, options);
  }

  /**
   * Records a score as runnable feedback `wandb.runnable.<name>` with payload `{output: value}`. `runnableRef`
   * defaults to the op ref `weave:///entity/project/op/<name>:latest`.
   */
  score(name: string, value: unknown, options: FeedbackOptions = {}): Promise<FeedbackCreateRes> {
    requireString(name, "score name", undefined, MAX_NAME_LENGTH);
    requireOptions(options);
    const runnableRef = options.runnableRef ?? opRef(this.project, name, "latest");
    return this.feedback(runnableFeedbackType(name), { output: value }, { ...options, runnableRef });
  }

  /**
   * Renames the call in the UI (`/call/update`). In portable mode (the call travels by OTLP), a call still running
   * takes the name as its `wandb.display_name` attribute instead: the service does not know the call before its span
   * is exported.
   */
  setDisplayName(name: string): Promise<void> {
    const body = {
      project_id: this.project,
      call_id: this.id,
      display_name: requireString(name, "display name", undefined, MAX_NAME_LENGTH),
    };
    const span = this.span?.deref();
    if (span?.isRecording() && spanRoute(span) === "otlp") {
      span.setAttribute("wandb.display_name", body.display_name);
      return Promise.resolve();
    }
    return handled(this.processor.enqueueRequest("/call/update", body, true).then(() => undefined));
  }
}

/**
 * A handle on a call recorded earlier or by another process, by its id, for feedback and scores. Needs tracing to
 * be set up (`init()` or a `TracewireSpanProcessor`) in this process.
 */
export function callById(callId: string, traceId = ""): Call {
  requireString(callId, "callId", undefined, MAX_NAME_LENGTH);
  if (typeof traceId !== "string") {
    throw new ValidationError(`traceId must be a string (32 hex digits, or empty), got ${typeof traceId}.`, "traceId");
  }
  const processor = globalState().active;
  if (!processor) {
    throw new TracewireError(
      "callById needs tracing to be set up: call init() or create a TracewireSpanProcessor first.",
    );
  }
  return new Call(callId, traceId, processor);
}
