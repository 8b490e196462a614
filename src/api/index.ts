/**
 * `tracewire/api`: typed clients for the tracing, inference and training services.
 *
 * @module tracewire/api
 */

export type { CallOptions, WithProject } from "./base.js";
export { InferenceChatCompletions } from "./inference/chat.js";
export { InferenceClient, type InferenceClientOptions, InferenceModels } from "./inference/client.js";
export {
  annotationFeedbackType,
  callRef,
  MAX_NOTE_LENGTH,
  NOTE_FEEDBACK_TYPE,
  objectRef,
  opRef,
  type ParsedRef,
  parseRef,
  REACTION_FEEDBACK_TYPE,
  REF_PREFIX,
  type RefKind,
  runnableFeedbackType,
  tableRef,
} from "./refs.js";
// Inference and training clients: exported below by their own modules.
export { ChatStream, type StreamResponseInfo } from "./stream.js";
export type { AnnotationQueuesApi } from "./tracing/annotation-queues.js";
export type { CallsApi } from "./tracing/calls.js";
export { TracingClient, type TracingClientOptions } from "./tracing/client.js";
export type { CostsApi } from "./tracing/costs.js";
export type { EvaluationsApi } from "./tracing/evaluations.js";
export type { FeedbackApi } from "./tracing/feedback.js";
export type { FilesApi } from "./tracing/files.js";
export type { ImagesApi } from "./tracing/images.js";
export type { CatalogQuery, InferenceCatalogApi } from "./tracing/inference-catalog.js";
export type { ObjectsApi } from "./tracing/objects.js";
export type { OtelApi } from "./tracing/otel.js";
export type { ProjectScope } from "./tracing/project.js";
export type { RefsApi } from "./tracing/refs.js";
export type { ServiceApi } from "./tracing/service.js";
export type { TablesApi } from "./tracing/tables.js";
export type { ThreadsApi } from "./tracing/threads.js";
export type {
  EvalResultsResource,
  EvaluationRunsResource,
  PredictionsResource,
  ScoresResource,
  V2ObjectResource,
} from "./tracing/v2-resources.js";
export { TrainingChatCompletions } from "./training/chat.js";
export type * from "./training/chat-params.js";
export { TrainingClient, type TrainingClientOptions } from "./training/client.js";
export {
  DEFAULT_POLL_INTERVAL_MS,
  isTrainingJobEvent,
  TERMINAL_TRAINING_EVENT_TYPES,
  TrainingJobs,
} from "./training/jobs.js";
export { TrainingModels } from "./training/models.js";
export type * from "./types/annotation-queues.js";
export type * from "./types/calls.js";
export type * from "./types/chat.js";
export type * from "./types/common.js";
export type * from "./types/costs.js";
export type * from "./types/evaluations.js";
export type * from "./types/feedback.js";
export type * from "./types/files.js";
export type * from "./types/images.js";
export type * from "./types/objects.js";
export type * from "./types/otel.js";
export type * from "./types/project.js";
export type * from "./types/refs.js";
export type * from "./types/service.js";
export type * from "./types/tables.js";
export type * from "./types/threads.js";
export type * from "./types/training.js";
