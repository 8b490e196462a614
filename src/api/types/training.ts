/**
 * Wire types of the training service (DESIGN §2.3): models, checkpoints, trajectories, training jobs and their
 * events, health. Field names are the service's own. Responses stay open (`[key: string]: unknown`) because the
 * service documents less than it sends (e.g. job status fields).
 */
import type {
  ChatCompletionChoiceLogprobs,
  ChatCompletionFunctionTool,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
} from "./chat.js";
import type { JsonObject, Timestamp } from "./common.js";

/** The list envelope of paged endpoints. Page with `after = last_id` while `has_more` is true. */
export interface ListPage<T> {
  object: "list";
  data: T[];
  /** Id of the first item; `""` on an empty page. */
  first_id?: string;
  /** Id of the last item; `""` on an empty page. */
  last_id?: string;
  has_more: boolean;
  [key: string]: unknown;
}

// ---- models and checkpoints -----------------------------------------------------------------------------------

/** Body of `POST /v1/preview/models`. */
export interface CreateModelParams {
  /** Project the model (and its W&B run) lives in. */
  project: string;
  /** Unique name within the project. */
  name: string;
  /** Base model to train, e.g. `OpenPipe/Qwen3-14B-Instruct`. */
  base_model: string;
  /** Team or user; default: the key's default entity. */
  entity?: string | null;
  /** Return the existing model of the same name instead of failing. Default false. */
  return_existing?: boolean;
}

/** A trainable model. `run_id` is the W&B run its training logs to. */
export interface TrainingModel {
  id: string;
  entity: string;
  project: string;
  name: string;
  base_model: string;
  run_id?: string | null;
  [key: string]: unknown;
}

/** Answer of `DELETE /v1/preview/models/{model_id}` (checkpoints, artifacts and the run are deleted too). */
export interface DeleteModelResponse {
  model_id: string;
  deleted_checkpoints: number;
  deleted_run: boolean;
  [key: string]: unknown;
}

/** One saved checkpoint of a model. */
export interface Checkpoint {
  id: string;
  step: number;
  metrics: Record<string, number>;
  [key: string]: unknown;
}

/** Query of `GET /v1/preview/models/{model_id}/checkpoints`. */
export interface ListCheckpointsParams {
  /** Start after this checkpoint id. */
  after?: string;
  /** Page size, an integer 1..100. Default 20. */
  limit?: number;
  /** By step. Default `asc`. */
  order?: "asc" | "desc";
}

/** Body of `DELETE /v1/preview/models/{model_id}/checkpoints`. */
export interface DeleteCheckpointsParams {
  steps: number[];
}

/** Answer of `DELETE /v1/preview/models/{model_id}/checkpoints`. */
export interface DeleteCheckpointsResponse {
  deleted_count: number;
  not_found_steps: number[];
  [key: string]: unknown;
}

// ---- trajectories ---------------------------------------------------------------------------------------------

/** A sampled choice kept inside a trajectory (the assistant turn as the engine returned it, with logprobs). */
export interface TrajectoryChoice {
  finish_reason: "stop" | "length" | "tool_calls" | "content_filter" | "function_call";
  index: number;
  logprobs?: ChatCompletionChoiceLogprobs | null;
  message: ChatCompletionMessage;
}

/** Another conversation that belongs to the same trajectory (e.g. a sub-agent). */
export interface TrajectoryHistory {
  messages_and_choices: (ChatCompletionMessageParam | TrajectoryChoice)[];
  tools?: ChatCompletionFunctionTool[] | null;
}

/** One rollout: the conversation, its reward and what to log with it. Every field is optional on the wire. */
export interface Trajectory {
  /** The conversation: request messages and sampled choices in order. Default `[]`. */
  messages_and_choices?: (ChatCompletionMessageParam | TrajectoryChoice)[];
  /** Tools offered during the rollout. */
  tools?: ChatCompletionFunctionTool[] | null;
  /** Default `[]`. */
  additional_histories?: TrajectoryHistory[];
  /** Default 0. */
  reward?: number;
  initial_policy_version?: number | null;
  final_policy_version?: number | null;
  /** Default `{}`. */
  metrics?: Record<string, number | boolean>;
  /** Default `{}`. */
  metadata?: Record<string, number | string | boolean | null>;
  /** Default `[]`. */
  logs?: string[];
  start_time?: Timestamp;
  /** Newer deployments only. */
  exchanges?: JsonObject;
}

/** Rollouts of the same prompt, compared with each other to compute advantages. */
export interface TrajectoryGroup {
  trajectories: Trajectory[];
  /** Newer deployments only: exceptions raised while rolling out. */
  exceptions?: { type: string; message: string; traceback?: string }[];
  metadata?: Record<string, number | string | boolean | null>;
  metrics?: Record<string, number | boolean>;
  logs?: string[];
}

/** Body of `POST /v1/preview/models/{model_id}/log`. */
export interface LogTrajectoriesParams {
  /** E.g. `train` or `val`. */
  split: string;
  trajectory_groups: TrajectoryGroup[];
}

// ---- training jobs --------------------------------------------------------------------------------------------

/** RL trainer overrides. Every field is optional; the service's defaults apply to what is left out. */
export interface ExperimentalTrainingConfig {
  advantage_balance?: number | null;
  allow_training_without_logprobs?: boolean | null;
  epsilon?: number | null;
  epsilon_high?: number | null;
  importance_sampling_level?: "token" | "sequence" | "average" | "geometric_average" | null;
  kimi_k2_tau?: number | null;
  kl_penalty_coef?: number | null;
  kl_penalty_reference_step?: number | null;
  kl_penalty_source?: "current_learner" | "sample" | null;
  kl_penalty_step_lag?: number | null;
  kl_ref_adapter_path?: string | null;
  learning_rate?: number | null;
  logprob_calculation_chunk_size?: number | null;
  loss_fn?: "cispo" | "ppo" | null;
  mask_prob_ratio?: boolean | null;
  max_negative_advantage_importance_sampling_weight?: number | null;
  normalize_advantages?: boolean | null;
  num_trajectories_learning_rate_multiplier_power?: number | null;
  packed_sequence_length?: number | null;
  plot_tensors?: boolean | null;
  ppo?: boolean | null;
  precalculate_logprobs?: boolean | null;
  scale_learning_rate_by_reward_std_dev?: boolean | null;
  scale_rewards?: boolean | null;
  truncated_importance_sampling?: number | null;
}

/** Body of `POST /v1/preview/training-jobs` (one RL step over the given groups). */
export interface CreateTrainingJobParams {
  model_id: string;
  trajectory_groups: TrajectoryGroup[];
  experimental_config?: ExperimentalTrainingConfig | null;
}

/** SFT settings. */
export interface SftTrainingConfig {
  /** Examples per step, or `"auto"`. */
  batch_size?: number | "auto" | null;
  /** One rate, or one per batch. */
  learning_rate?: number | number[] | null;
  metric_logging?: { enabled?: boolean; target_training_step?: number; [key: string]: unknown } | null;
}

/** Body of `POST /v1/preview/sft-training-jobs`. */
export interface CreateSftTrainingJobParams {
  model_id: string;
  /** A W&B artifact, e.g. `wandb-artifact:///entity/project/name:v0`, holding `train.jsonl` chat examples. */
  training_data_url: string;
  config?: SftTrainingConfig | null;
  experimental_config?: JsonObject | null;
}

/** Answer of the job-creating endpoints. */
export interface TrainingJobCreated {
  id: string;
  [key: string]: unknown;
}

/**
 * Answer of `GET /v1/preview/training-jobs/{id}`. Only `id` is documented; deployments also send fields such as
 * `status`, `model_id`, `created_at`, `training_start`, `training_end` and `error_message`, whose values are not
 * specified — they are kept as sent.
 */
export interface TrainingJob {
  id: string;
  [key: string]: unknown;
}

// ---- events ---------------------------------------------------------------------------------------------------

/** The job started. `num_sequences` is the number of gradient steps to expect. */
export interface TrainingStartedEvent {
  id: string;
  type: "training_started";
  data: { num_sequences?: number; [key: string]: unknown };
}
/** One optimizer step with its metrics (`loss`, `grad_norm`, `learning_rate`, `reward`, …). */
export interface GradientStepEvent {
  id: string;
  type: "gradient_step";
  data: Record<string, number>;
}
/** The job finished. Terminal. */
export interface TrainingEndedEvent {
  id: string;
  type: "training_ended";
  data: JsonObject;
}
/** The job failed. Terminal. */
export interface TrainingFailedEvent {
  id: string;
  type: "training_failed";
  data: { error_message: string; [key: string]: unknown };
}
/** An event type this library does not know yet, passed through as sent. */
export interface OtherTrainingJobEvent {
  id: string;
  type: string;
  data: JsonObject;
}
/** The event types the service documents. */
export type KnownTrainingJobEvent = TrainingStartedEvent | GradientStepEvent | TrainingEndedEvent | TrainingFailedEvent;
/**
 * Any event of a training job. Because an unknown type may be any string, `event.type === "gradient_step"` alone
 * does not narrow `data` fully; `isTrainingJobEvent(event, "gradient_step")` does.
 */
export type TrainingJobEvent = KnownTrainingJobEvent | OtherTrainingJobEvent;

/** Options of `jobs.events()`. */
export interface TrainingJobEventsParams {
  /** Start after this event id. */
  after?: string;
  /** Page size, an integer 1..100. Server default 20. */
  limit?: number;
  /** Keep polling after the last page until a `training_ended`/`training_failed` event (or `signal`). */
  follow?: boolean;
  /** Wait between polls in follow mode, in ms. Default 1000. */
  pollIntervalMs?: number;
  /** Stops the iteration (with an `AbortError`), also between polls. */
  signal?: AbortSignal;
}

// ---- health ---------------------------------------------------------------------------------------------------

/** Body of `GET /v1/system-check`. The key shapes are not documented, so they are kept as sent. */
export interface SystemCheckBody {
  /** Whether the API answers (always true when there is a body). */
  api?: unknown;
  /** Whether the database connection works. */
  database?: unknown;
  /** CPU queue check: success, duration and any errors. */
  cpu_queue?: unknown;
  /** GPU queue check: success, duration and any errors. */
  gpu_queue?: unknown;
  [key: string]: unknown;
}

/** Result of `systemCheck()`: the status says whether every check passed (200) or one failed (503). */
export interface SystemCheckResult {
  /** True when the service answered 200. */
  ok: boolean;
  status: number;
  body: SystemCheckBody;
}
