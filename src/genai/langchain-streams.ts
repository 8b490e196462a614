/**
 * LangChain streams whose consumer stops reading. `runnable.stream()` runs the runnable as an async generator that
 * reports the run's end only when it runs to its end or throws: a consumer that breaks out of the stream (or cancels
 * it) returns the generator at a `yield`, and LangChain reports nothing, so the run's call and the calls under it
 * (a chain's model call mid-stream) would stay open forever. `instrument/langchain.ts` runs each `stream()` call in
 * a *stream scope*; the first run the handler opens inside it is the stream's own run ({@link claimStream}). When the
 * consumer returns or cancels the stream before its end, whatever of that run LangChain left open ends as cancelled
 * (`break`), innermost first, each once ({@link endStream}). LangGraph's own streams end their runs themselves (as
 * aborted) and are not touched.
 */
import { type Context, context, createContextKey } from "@opentelemetry/api";
import { unbridgedContext } from "../tracing/run-context.js";
import type { FrameworkRun, RunTracker } from "./framework-runs.js";

const STREAM_KEY = createContextKey("tracewire.langchain.stream");

/** One `stream()` call: its run, once the handler opened it. */
export interface StreamScope {
  run: FrameworkRun | undefined;
}

/** The context of a new stream scope, and the scope. */
export function streamScopeContext(): { ctx: Context; scope: StreamScope } {
  const scope: StreamScope = { run: undefined };
  return { ctx: context.active().setValue(STREAM_KEY, scope), scope };
}

/** The run just opened is the stream's own, when it is the first one opened in the current stream scope. */
export function claimStream(run: FrameworkRun): void {
  const scope = unbridgedContext().getValue(STREAM_KEY) as StreamScope | undefined;
  if (scope && scope.run === undefined && !run.transparent) scope.run = run;
}

/** The consumer stopped reading: the stream's run and what is open under it end as cancelled (`break`). */
export function endStream(runs: RunTracker, scope: StreamScope): void {
  const run = scope.run;
  if (run && !run.ended) runs.endUnder(run, { cancelled: "break" });
}
