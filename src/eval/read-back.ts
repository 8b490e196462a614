/**
 * Reading an evaluation back from the service: finding its root call (by id, or the latest unfinished one of a
 * name), and its rows — the `predict_and_score` calls under the root, each with its row digest (from the row ref),
 * trial, output, scores, latency and usage. `resume` uses it to skip what is scored; `--baseline` to compare.
 */
import { parseRef, REF_PREFIX } from "../api/refs.js";
import type { TracingClient } from "../api/tracing/client.js";
import type { CallSchema } from "../api/types/calls.js";
import type { JsonObject, LlmUsage } from "../api/types/common.js";
import { ValidationError } from "../errors.js";
import { rowDigestOf } from "./dataset.js";
import { EVALUATE_OP, PREDICT_AND_SCORE_OP, PREDICT_AND_SCORE_OP_CAMEL, SUMMARIZE_OP } from "./objects.js";
import type { ScoreValue } from "./types.js";

/** The op name inside an op ref (or the op name itself when it is not a ref). */
export function opNameOf(opName: string | null | undefined): string {
  if (!opName) return "";
  if (!opName.startsWith(REF_PREFIX)) return opName;
  try {
    return parseRef(opName).name ?? opName;
  } catch {
    return opName;
  }
}

const isPredictAndScore = (call: CallSchema) => {
  const name = opNameOf(call.op_name);
  return name === PREDICT_AND_SCORE_OP || name === PREDICT_AND_SCORE_OP_CAMEL;
};

/** The name of the object a ref points at (`…/object/<name>:<digest>` → name). */
export function objectNameOf(ref: unknown): string | undefined {
  if (typeof ref !== "string" || !ref.startsWith(REF_PREFIX)) return undefined;
  try {
    return parseRef(ref).name;
  } catch {
    return undefined;
  }
}

const summaryOf = (call: CallSchema) => (call.summary ?? {}) as JsonObject & { tracewire?: { status?: string } };

/** Whether a root call is finished: ended, not cancelled, without an error. */
export function isFinished(call: CallSchema): boolean {
  return Boolean(call.ended_at) && !call.exception && summaryOf(call).tracewire?.status !== "cancelled";
}

/** Reads one call; undefined when there is none. */
export async function readCall(client: TracingClient, project: string, id: string): Promise<CallSchema | undefined> {
  const { call } = await client.calls.read({ project_id: project, id });
  return call ?? undefined;
}

/** Evaluation roots of the project, newest first (at most `limit`). */
export async function evaluationRoots(client: TracingClient, project: string, limit = 200): Promise<CallSchema[]> {
  const roots: CallSchema[] = [];
  const stream = client.calls.streamQuery({
    project_id: project,
    filter: { op_names: [`${REF_PREFIX}${project}/op/${EVALUATE_OP}:*`], trace_roots_only: true },
    sort_by: [{ field: "started_at", direction: "desc" }],
    limit,
  });
  for await (const call of stream) if (opNameOf(call.op_name) === EVALUATE_OP) roots.push(call);
  return roots;
}

/** The evaluation root `idOrName` names: a call id, or the latest evaluation whose object is named so. */
export async function findEvaluation(
  client: TracingClient,
  project: string,
  idOrName: string,
  which: "latest" | "unfinished" = "latest",
): Promise<CallSchema | undefined> {
  if (/^[0-9a-f]{16}$|^[0-9a-f-]{36}$/i.test(idOrName)) {
    const call = await readCall(client, project, idOrName);
    if (call) return call;
  }
  if (idOrName.startsWith(REF_PREFIX)) {
    const parsed = parseRef(idOrName);
    if (parsed.kind === "call") return readCall(client, project, parsed.callId!);
  }
  const roots = await evaluationRoots(client, project);
  return roots.find(
    (r) =>
      (objectNameOf(r.inputs?.self) === idOrName || r.display_name === idOrName) &&
      (which === "latest" ? isFinished(r) : !isFinished(r)),
  );
}

/** One row × trial as recorded. */
export interface RecordedRow {
  callId: string;
  rowDigest: string;
  rowRef: string | undefined;
  trial: number;
  output: unknown;
  scores: Record<string, ScoreValue | null>;
  latency: number | undefined;
  usage: Record<string, LlmUsage> | undefined;
  /** Ended, without error or cancellation, and its model call succeeded. */
  scored: boolean;
  /** The model's call failed (the task threw). */
  failed: boolean;
}

/** An evaluation as recorded: its root, its rows, and the calls a resume must replace. */
export interface RecordedEvaluation {
  root: CallSchema;
  rows: RecordedRow[];
  /** `Evaluation.summarize` calls under the root. */
  summarizeIds: string[];
}

/** Reads the calls of an evaluation's trace and sorts out its rows. */
export async function readEvaluation(
  client: TracingClient,
  project: string,
  root: CallSchema,
): Promise<RecordedEvaluation> {
  const calls: CallSchema[] = [];
  for await (const call of client.calls.streamQuery({ project_id: project, filter: { trace_ids: [root.trace_id] } }))
    calls.push(call);
  const children = new Map<string, CallSchema[]>();
  for (const call of calls) {
    if (!call.parent_id) continue;
    const list = children.get(call.parent_id) ?? [];
    list.push(call);
    children.set(call.parent_id, list);
  }
  const model = root.inputs?.model;
  const rows: RecordedRow[] = [];
  const summarizeIds: string[] = [];
  for (const call of children.get(root.id) ?? []) {
    if (opNameOf(call.op_name) === SUMMARIZE_OP) {
      summarizeIds.push(call.id);
      continue;
    }
    if (!isPredictAndScore(call)) continue;
    const inputs = call.inputs ?? {};
    const example = inputs.example;
    const rowDigest = rowDigestOf(example) ?? JSON.stringify(example ?? null);
    const output = (call.output ?? {}) as {
      output?: unknown;
      scores?: Record<string, ScoreValue>;
      model_latency?: unknown;
    };
    const below = children.get(call.id) ?? [];
    const modelCall = below.find((c) => c.inputs?.self === model) ?? below.find((c) => /predict/i.test(c.op_name));
    const failed = Boolean(modelCall?.exception) || (!modelCall && Boolean(call.ended_at) && !output.scores);
    const trial = (call.attributes as { tracewire?: { eval?: { trial?: unknown } } } | undefined)?.tracewire?.eval
      ?.trial;
    rows.push({
      callId: call.id,
      rowDigest,
      rowRef: typeof example === "string" ? example : undefined,
      trial: typeof trial === "number" ? trial : 0,
      output: output.output,
      scores: output.scores ?? {},
      latency: typeof output.model_latency === "number" ? output.model_latency : undefined,
      usage: summaryOf(call).usage as Record<string, LlmUsage> | undefined,
      scored: isFinished(call) && Boolean(modelCall?.ended_at) && !failed,
      failed,
    });
  }
  return { root, rows, summarizeIds };
}

/** Adds usage keyed by model (summed field by field). */
export function addUsage(into: Record<string, LlmUsage>, more: Record<string, LlmUsage> | undefined): void {
  for (const [model, usage] of Object.entries(more ?? {})) {
    if (!into[model]) into[model] = {} as LlmUsage;
    const target = into[model] as unknown as Record<string, number>;
    for (const [key, value] of Object.entries(usage)) {
      if (typeof value === "number") target[key] = (target[key] ?? 0) + value;
    }
  }
}

/** Checks that a recorded root can be resumed by this evaluation (same objects), or says why not. */
export function checkResumable(root: CallSchema, evaluationRef: string, modelRef: string): void {
  if (opNameOf(root.op_name) !== EVALUATE_OP)
    throw new ValidationError(`resume: call ${root.id} is not an evaluation (its op is ${root.op_name}).`, "resume");
  if (!/^[0-9a-f]{16}$/.test(root.id) || !/^[0-9a-f]{32}$/.test(root.trace_id))
    throw new ValidationError(
      `resume: call ${root.id} was not recorded by tracewire/eval; it cannot be reopened.`,
      "resume",
    );
  const changed: string[] = [];
  if (root.inputs?.self !== evaluationRef) changed.push(`the evaluation (${root.inputs?.self} → ${evaluationRef})`);
  if (root.inputs?.model !== modelRef) changed.push(`the model (${root.inputs?.model} → ${modelRef})`);
  if (changed.length > 0) {
    throw new ValidationError(
      `resume: ${changed.join(" and ")} changed since call ${root.id} started (dataset, scorers, trials or the task's code differ), so its rows would not be comparable. Start a new evaluation (leave resume out), or restore what changed.`,
      "resume",
    );
  }
}
