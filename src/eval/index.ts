/**
 * `tracewire/eval`: evaluate an LLM app from TypeScript, recorded as the tracing service records evaluations (its
 * UI's evaluations list, comparison page and leaderboards show them), resumable, CI-ready, and browsable in
 * `tracewire dev`. See docs/evaluations.md.
 *
 * @module tracewire/eval
 */

export type { BuiltinOptions, StandardSchemaLike } from "./builtins.js";
export { contains, exactMatch, jsonParses, matchesSchema, numericTolerance } from "./builtins.js";
export { DEFAULT_CONCURRENCY, evaluate } from "./evaluate.js";
export type { EvaluationLoggerOptions, LoggedEvaluation } from "./logger.js";
export { EvaluationLogger, ScoreLogger } from "./logger.js";
export { formatReport } from "./progress.js";
export { autoSummarize, summaryOf } from "./summary.js";
export type {
  AnyScorer,
  Concurrency,
  DatasetSource,
  EvaluateOptions,
  EvaluationResult,
  EvaluationSummary,
  NamedDataset,
  RetryPolicy,
  Row,
  RowResult,
  RowSpread,
  RunContext,
  ScoreOf,
  Scorer,
  ScorerFunction,
  ScorerInput,
  ScorerObject,
  ScoreStats,
  ScoreValue,
  SummaryOf,
  Task,
} from "./types.js";
