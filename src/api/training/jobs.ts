import { kindOf, MAX_TIMER_MS } from "../../config.js";
import { ValidationError } from "../../errors.js";
import { encodePath, type HttpTransport } from "../../http/transport.js";
import { describeAs } from "../../own-objects.js";
import { anySignal } from "../../runtime.js";
import { type CallOptions, checkKnownKeys, describeValue, requireString, withCall } from "../base.js";
import type {
  CreateSftTrainingJobParams,
  CreateTrainingJobParams,
  KnownTrainingJobEvent,
  ListPage,
  TrainingJob,
  TrainingJobCreated,
  TrainingJobEvent,
  TrainingJobEventsParams,
} from "../types/training.js";
import { checkCursor, checkLimit, requireObject } from "./args.js";
import { paginate } from "./paging.js";

/** The parameters {@link TrainingJobs.events} takes (the endpoint has no `order`). */
const EVENTS_PARAMS = ["after", "limit", "follow", "pollIntervalMs", "signal"] as const;

/** Event types after which a job produces no more events. */
export const TERMINAL_TRAINING_EVENT_TYPES: readonly string[] = ["training_ended", "training_failed"];

/** Default wait between polls of `jobs.events(id, {follow: true})`, in ms. */
export const DEFAULT_POLL_INTERVAL_MS = 1000;

/**
 * Narrows an event to one documented type, data included (`event.type === …` alone cannot, because an event
 * type the library does not know yet may be any string).
 */
export function isTrainingJobEvent<K extends KnownTrainingJobEvent["type"]>(
  event: TrainingJobEvent,
  type: K,
): event is Extract<KnownTrainingJobEvent, { type: K }> {
  if (typeof type !== "string") {
    throw new ValidationError(`isTrainingJobEvent: type must be an event type string, got ${typeof type}.`, "type");
  }
  return typeof event === "object" && event !== null && (event as { type?: unknown }).type === type;
}

/** Training jobs and their event streams (`/v1/preview/training-jobs`, `/v1/preview/sft-training-jobs`). */
export class TrainingJobs {
  constructor(private readonly transport: HttpTransport) {}

  /**
   * `POST /v1/preview/training-jobs`: starts an RL training step over the given trajectory groups. Not retried
   * once the request may have reached the server (there is no idempotency key: a replay could train twice).
   */
  create(params: CreateTrainingJobParams, options?: CallOptions): Promise<TrainingJobCreated> {
    requireObject(params, "jobs.create");
    requireString(params.model_id, "model_id", "jobs.create");
    if (!Array.isArray(params.trajectory_groups)) {
      throw new ValidationError("jobs.create: trajectory_groups must be an array.", "trajectory_groups");
    }
    return this.transport.json(withCall({ method: "POST", path: "/v1/preview/training-jobs", json: params }, options));
  }

  /** `POST /v1/preview/sft-training-jobs`: starts supervised fine-tuning on a W&B artifact of chat examples. */
  createSft(params: CreateSftTrainingJobParams, options?: CallOptions): Promise<TrainingJobCreated> {
    requireObject(params, "jobs.createSft");
    requireString(params.model_id, "model_id", "jobs.createSft");
    requireString(params.training_data_url, "training_data_url", "jobs.createSft");
    const path = "/v1/preview/sft-training-jobs";
    return this.transport.json(withCall({ method: "POST", path, json: params }, options));
  }

  /** `GET /v1/preview/training-jobs/{id}`: the job as the service reports it (undocumented fields kept). */
  retrieve(jobId: string, options?: CallOptions): Promise<TrainingJob> {
    const path = `/v1/preview/training-jobs/${encodePath(requireString(jobId, "jobId", "jobs.retrieve"))}`;
    return this.transport.json(withCall({ method: "GET", path }, options));
  }

  /**
   * `GET /v1/preview/training-jobs/{id}/events` as an async iterator: every event in order, fetching pages with
   * `after = last_id` until `has_more` is false. With `follow: true` it then keeps polling every
   * `pollIntervalMs` (default 1000) and ends right after a `training_ended` or `training_failed` event — a failed
   * job is an event to read (`data.error_message`), not an exception. `signal` (or `options.signal`) ends the
   * iteration with an `AbortError`, also between polls. Bad arguments throw here, before anything is sent;
   * nothing is sent until iteration starts. SFT jobs report through the same path.
   */
  events(jobId: string, params: TrainingJobEventsParams = {}, options?: CallOptions): AsyncGenerator<TrainingJobEvent> {
    const method = "jobs.events";
    requireObject(params, method);
    checkKnownKeys(params, EVENTS_PARAMS, method);
    const path = `/v1/preview/training-jobs/${encodePath(requireString(jobId, "jobId", method))}/events`;
    const limit = checkLimit(params.limit, method);
    const start = checkCursor(params.after, method);
    const intervalMs = params.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    // Past MAX_TIMER_MS a timer fires after 1 ms instead: follow mode would poll the service in a tight loop.
    if (typeof intervalMs !== "number" || !Number.isFinite(intervalMs) || intervalMs < 0 || intervalMs > MAX_TIMER_MS) {
      throw new ValidationError(
        `${method}: pollIntervalMs must be a number of ms from 0 to ${MAX_TIMER_MS}, got ${describeValue(params.pollIntervalMs)}.`,
        "pollIntervalMs",
      );
    }
    if (params.follow !== undefined && typeof params.follow !== "boolean") {
      throw new ValidationError(
        `${method}: follow must be true or false, got ${describeValue(params.follow)}.`,
        "follow",
      );
    }
    if (params.signal !== undefined && !(params.signal instanceof AbortSignal)) {
      throw new ValidationError(`${method}: signal must be an AbortSignal, got ${kindOf(params.signal)}.`, "signal");
    }
    withCall({ method: "GET", path }, options); // checks the call options now, not at the first page
    const signals = [params.signal, options?.signal].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length > 1 ? anySignal(signals) : signals[0];
    const call: CallOptions = { ...options, ...(signal ? { signal } : {}) };
    const fetchPage = (after: string | undefined) =>
      this.transport.json<ListPage<TrainingJobEvent>>(withCall({ method: "GET", path, query: { after, limit } }, call));
    const follow = params.follow
      ? {
          intervalMs,
          signal,
          isTerminal: (event: TrainingJobEvent) => TERMINAL_TRAINING_EVENT_TYPES.includes(event.type),
        }
      : undefined;
    return paginate(fetchPage, start, { method: "GET", path }, follow);
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(TrainingJobs, "TrainingJobs");
