/**
 * `POST /v2/{entity}/{project}/eval_results/query`: evaluations side by side, row by row, as the service answers it
 * (its `eval_results_helpers`): the `predict_and_score` calls under each evaluation's root, joined across
 * evaluations by row digest (taken from the `…/attr/rows/id/<digest>` row ref, else a digest of the example), each
 * trial with its model output, scores, latency (from the model's call), tokens and scorer call ids; with
 * `include_summary`, per-evaluation scorer statistics. The viewer's Evaluations view reads it too.
 */
import { parseRef, REF_PREFIX } from "../../api/refs.js";
import type { JsonObject } from "../../api/types/common.js";
import type { EvalResultsQueryBody } from "../../api/types/project.js";
import { bytesDigest } from "../digest.js";
import { HttpError } from "../http.js";
import { pythonDumps } from "../python-json.js";
import type { Router } from "../router.js";
import { EVAL_RESULTS_QUERY } from "../schemas.js";
import type { Store, StoredCall } from "../store/types.js";
import { validateBody } from "../validate.js";
import { checkProject } from "./calls.js";
import { resolveRef } from "./objects.js";

const PREDICT_AND_SCORE = new Set(["Evaluation.predict_and_score", "Evaluation.predictAndScore"]);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The op's name: the `<name>` of `weave:///e/p/op/<name>:<digest>`, or the op name as is. */
function opName(call: StoredCall): string {
  const op = call.op_name ?? "";
  if (!op.startsWith(REF_PREFIX)) return op;
  try {
    return parseRef(op).name ?? op;
  } catch {
    return op;
  }
}

/** Row digest from a row ref, else the service's digest of the example's sorted JSON. */
function rowDigest(example: unknown): { digest: string; fromRef: boolean } {
  if (typeof example === "string") {
    const at = example.lastIndexOf("/attr/rows/id/");
    if (at !== -1) return { digest: decodeURIComponent(example.slice(at + 14)), fromRef: true };
  }
  return { digest: bytesDigest(typeof example === "string" ? example : pythonDumps(example ?? null)), fromRef: false };
}

const isScorerCall = (call: StoredCall) => {
  const weave = (call.attributes?.weave ?? {}) as JsonObject;
  const meta = call.attributes?._weave_eval_meta;
  if (weave.score === "true" || (isRecord(meta) && meta.score)) return true;
  const name = (call.op_name ?? "").toLowerCase();
  return name.includes(".score") || name.includes("scorer");
};

function predictCall(children: StoredCall[], modelRef: unknown): StoredCall | undefined {
  for (const call of children) {
    if (isScorerCall(call)) continue;
    if (call.inputs?.self !== undefined && call.inputs.self === modelRef) return call;
    if (/predict|invoke/.test((call.op_name ?? "").toLowerCase())) return call;
  }
  return undefined;
}

function totalTokens(summary: JsonObject | null | undefined): number | null {
  const usage = summary?.usage;
  if (!isRecord(usage)) return null;
  let total = 0;
  let found = false;
  for (const u of Object.values(usage)) {
    if (isRecord(u) && typeof u.total_tokens === "number") {
      total += u.total_tokens;
      found = true;
    }
  }
  return found ? total : null;
}

const seconds = (from: string | null, to: string | null) =>
  from && to ? (Date.parse(to) - Date.parse(from)) / 1000 : null;

function trialOf(call: StoredCall, children: StoredCall[]): JsonObject {
  const output = isRecord(call.output) ? call.output : {};
  const scores: JsonObject = isRecord(output.scores) ? { ...(output.scores as JsonObject) } : {};
  const scorerIds: JsonObject = {};
  for (const child of children.filter(isScorerCall)) {
    const key = opName(child).replace(/\.score$/, "");
    if (!(key in scores)) scores[key] = child.output as JsonObject[string];
    if (key in scores) scorerIds[key] = child.id;
  }
  const predict = predictCall(children, call.inputs?.model);
  const meanLatency = isRecord(output.model_latency) ? output.model_latency.mean : output.model_latency;
  return {
    predict_and_score_call_id: call.id,
    predict_call_id: predict?.id ?? null,
    model_output: (output.output ?? null) as JsonObject[string],
    scores,
    model_latency_seconds:
      (predict ? seconds(predict.started_at, predict.ended_at) : null) ??
      (typeof meanLatency === "number" ? meanLatency : null),
    total_tokens: totalTokens(predict ? predict.summary : call.summary),
    scorer_call_ids: scorerIds,
    // tracewire's own: the trial index and whether the row's task failed, for the viewer.
    trial_index: ((call.attributes?.tracewire as { eval?: { trial?: number } } | undefined)?.eval?.trial ??
      null) as JsonObject[string],
    failed: Boolean(predict?.exception),
    exception: (predict?.exception ?? call.exception ?? null) as JsonObject[string],
  };
}

/** Leaves of a score (`path` below the scorer key) with their values. */
function leaves(value: unknown, path: string[] = []): [string[], unknown][] {
  if (isRecord(value)) return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
  return [[path, value]];
}

/** Per scorer key and leaf path: counts and means, as `include_summary` answers them. */
function scorerStats(trials: JsonObject[]): JsonObject[] {
  const stats = new Map<string, JsonObject & { _values: unknown[] }>();
  for (const trial of trials) {
    for (const [key, score] of Object.entries(trial.scores as JsonObject)) {
      for (const [path, value] of leaves(score)) {
        const id = `${key}\u0000${path.join(".")}`;
        let entry = stats.get(id);
        if (!entry) {
          entry = { scorer_key: key, ...(path.length ? { path: path.join(".") } : {}), _values: [] };
          stats.set(id, entry);
        }
        entry._values.push(value);
      }
    }
  }
  return [...stats.values()].map(({ _values, ...entry }) => {
    const bools = _values.filter((v): v is boolean => typeof v === "boolean");
    const numbers = _values.filter((v): v is number => typeof v === "number" && Number.isFinite(v));
    const known = _values.filter((v) => v !== null && v !== undefined).length;
    const trueCount = bools.filter(Boolean).length;
    const type = bools.length && bools.length >= numbers.length ? "binary" : numbers.length ? "continuous" : "text";
    return {
      ...entry,
      value_type: type,
      trial_count: _values.length,
      numeric_count: numbers.length + bools.length,
      numeric_mean:
        numbers.length + bools.length
          ? (numbers.reduce((a, b) => a + b, 0) + trueCount) / (numbers.length + bools.length)
          : null,
      pass_true_count: trueCount,
      pass_known_count: bools.length,
      pass_rate: bools.length ? trueCount / bools.length : null,
      pass_signal_coverage: _values.length ? known / _values.length : null,
    };
  });
}

/** The mean of a score at `field` (`scores.<key>[.<path>]`) over an evaluation's trials of one row. */
function sortValue(row: JsonObject, field: string, evaluationId: string | undefined): number | null {
  const evaluations = row.evaluations as JsonObject[];
  const evaluation = evaluationId ? evaluations.find((e) => e.evaluation_call_id === evaluationId) : evaluations[0];
  const trials = (evaluation?.trials ?? []) as JsonObject[];
  const path = field.split(".").slice(1);
  const values = trials.flatMap((t) => {
    let node: unknown = t.scores;
    for (const part of path) node = isRecord(node) ? node[part] : undefined;
    return typeof node === "number" ? [node] : typeof node === "boolean" ? [node ? 1 : 0] : [];
  });
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

export function evalResultsRoutes(router: Router): void {
  router.on("POST", "/v2/:entity/:project/eval_results/query", async (req, { store }) => {
    const body = validateBody<EvalResultsQueryBody>(await req.json(), EVAL_RESULTS_QUERY);
    const project = checkProject(`${req.params.entity}/${req.params.project}`);
    const ids = [...new Set([...(body.evaluation_call_ids ?? []), ...(body.evaluation_run_ids ?? [])])];
    if (ids.length === 0) throw new HttpError(400, "eval_results/query needs evaluation_call_ids.");
    return { json: evalResults(store, project, ids, body) };
  });
}

function evalResults(store: Store, project: string, ids: string[], body: EvalResultsQueryBody): JsonObject {
  const roots = store.selectCalls({ project, filter: { call_ids: ids } });
  const pas = store
    .selectCalls({ project, filter: { parent_ids: ids } })
    .filter((c) => PREDICT_AND_SCORE.has(opName(c)));
  const children = new Map<string, StoredCall[]>();
  if (pas.length) {
    for (const child of store.selectCalls({ project, filter: { parent_ids: pas.map((c) => c.id) } })) {
      const list = children.get(child.parent_id!) ?? [];
      list.push(child);
      children.set(child.parent_id!, list);
    }
  }
  const rows = new Map<string, { row_digest: string; raw_data_row: unknown; evaluations: Map<string, JsonObject[]> }>();
  for (const call of pas) {
    const example = call.inputs?.example;
    const { digest } = rowDigest(example);
    let row = rows.get(digest);
    if (!row) {
      row = { row_digest: digest, raw_data_row: body.include_raw_data_rows ? example : null, evaluations: new Map() };
      rows.set(digest, row);
    }
    const trials = row.evaluations.get(call.parent_id!) ?? [];
    trials.push(trialOf(call, children.get(call.id) ?? []));
    row.evaluations.set(call.parent_id!, trials);
  }
  let list: JsonObject[] = [...rows.values()].map((row) => {
    let raw = row.raw_data_row;
    if (body.include_raw_data_rows && body.resolve_row_refs && typeof raw === "string" && raw.startsWith(REF_PREFIX)) {
      try {
        raw = resolveRef(store, raw);
      } catch {}
    }
    return {
      row_digest: row.row_digest,
      raw_data_row: (raw ?? null) as JsonObject[string],
      evaluations: ids
        .filter((id) => row.evaluations.has(id))
        .map((id) => ({ evaluation_call_id: id, trials: row.evaluations.get(id)! })),
    };
  });
  if (body.require_intersection) list = list.filter((r) => (r.evaluations as JsonObject[]).length === ids.length);
  const warnings: string[] = [];
  if (body.filters?.length) warnings.push("tracewire dev: filters are not applied; filter the rows client-side.");
  for (const sort of [...(body.sort_by ?? [])].reverse()) {
    if (!sort.field.startsWith("scores.")) continue;
    const sign = sort.direction === "desc" ? -1 : 1;
    const key = (row: JsonObject) => {
      const value = sortValue(row, sort.field, sort.evaluation_call_id);
      if (sort.mode !== "difference") return value;
      const other = ids.find((id) => id !== sort.evaluation_call_id);
      const base = sortValue(row, sort.field, other);
      return value === null || base === null ? null : value - base;
    };
    list.sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      if (x === null || y === null) return x === null ? (y === null ? 0 : 1) : -1;
      return sign * (x - y);
    });
  }
  const total = list.length;
  const offset = body.offset ?? 0;
  const page = list.slice(offset, body.limit === undefined || body.limit === null ? undefined : offset + body.limit);
  const answer: JsonObject = { rows: body.include_rows === false ? [] : page, total_rows: total, warnings };
  if (body.include_summary) {
    answer.summary = {
      row_count: total,
      evaluations: ids.map((id) => {
        const root = roots.find((r) => r.id === id);
        const trials = list.flatMap(
          (r) =>
            ((r.evaluations as JsonObject[]).find((e) => e.evaluation_call_id === id)?.trials ?? []) as JsonObject[],
        );
        return {
          evaluation_call_id: id,
          trial_count: trials.length,
          scorer_stats: scorerStats(trials),
          evaluation_ref: (root?.inputs?.self ?? null) as JsonObject[string],
          model_ref: (root?.inputs?.model ?? null) as JsonObject[string],
          display_name: root?.display_name ?? null,
          trace_id: root?.trace_id ?? null,
          started_at: root?.started_at ?? null,
        };
      }),
    };
  }
  return answer;
}
