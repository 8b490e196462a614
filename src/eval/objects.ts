/**
 * The objects an evaluation publishes before it runs, shaped as the service's UI reads them (reference
 * evaluations.md §"How the hosted UI recognises an evaluation"): ops (source file + `CustomWeaveType` object), the
 * `Model`, each scorer (an op ref, or a `Scorer` object), and the `Evaluation`. Digests are the service's answers,
 * never computed here; a value published twice gets the same digest, so a re-run points at the same versions.
 */
import { objectRef, opRef } from "../api/refs.js";
import type { TracingClient } from "../api/tracing/client.js";
import type { JsonObject } from "../api/types/common.js";
import { rememberSecret } from "../otel/known-secrets.js";
import { type KeyRedactor, scrubText } from "../secrets.js";
import { payloadSettings, redactPayload } from "../tracing/payload.js";

/** The op names of an evaluation's own calls, as the service and its UI know them. */
export const EVALUATE_OP = "Evaluation.evaluate";
export const PREDICT_AND_SCORE_OP = "Evaluation.predict_and_score";
export const SUMMARIZE_OP = "Evaluation.summarize";
/** The vendor's TS SDK spells the per-row op this way; the service and its UI accept both. */
export const PREDICT_AND_SCORE_OP_CAMEL = "Evaluation.predictAndScore";
const OP_FILE = "obj.py";
const BASES = ["Object", "BaseModel"];

/**
 * An object name the service accepts (`[A-Za-z0-9_.-]`, 1–128 characters) made from any text: other characters
 * become `-`. Also a valid scorer name for `wandb.runnable.<name>` feedback.
 */
export function safeName(text: string, fallback: string): string {
  const name = text
    .replace(/[^A-Za-z0-9_.-]+/g, "-")
    .replace(/^[-.]+|-+$/g, "")
    .slice(0, 128);
  return name || fallback;
}

/** The source of tracewire's own evaluation ops (stored like any op's source; the UI shows it). */
const OWN_SOURCE: Record<string, string> = {
  [EVALUATE_OP]:
    "// tracewire/eval: evaluate(options) runs the task over every row × trial of the dataset, scores each\n" +
    "// output with every scorer, then summarizes. This call's output is the summary.\n",
  [PREDICT_AND_SCORE_OP]:
    "// tracewire/eval: one row × trial: the model's call, then one call per scorer.\n" +
    "// Output: { output, scores: { <scorer>: <score> }, model_latency: <seconds> }.\n",
  [SUMMARIZE_OP]:
    "// tracewire/eval: the service's summary rules: booleans -> {true_count, true_fraction},\n" +
    "// numbers -> {mean}, objects -> per key; nulls dropped; model_latency -> {mean}.\n",
};

/** The source recorded for a user function: its text with credentials masked, or a placeholder when off. */
export function sourceOf(fn: unknown, capture: boolean): string {
  if (!capture || typeof fn !== "function") return "// source not recorded (captureCode: false)\n";
  try {
    return `${scrubText(Function.prototype.toString.call(fn))}\n`;
  } catch {
    return "// source unavailable\n";
  }
}

/** Publishes an evaluation's objects through a `TracingClient`, each value once per process. */
export class Publisher {
  private readonly cache = new Map<string, Promise<string>>();

  constructor(
    readonly client: TracingClient,
    readonly project: string,
  ) {}

  /** `/obj/create`, answering the object's ref (`object` or `op` kind). */
  object(name: string, val: JsonObject, kind: "object" | "op" = "object"): Promise<string> {
    const key = `${kind}\u0000${name}\u0000${JSON.stringify(val)}`;
    let ref = this.cache.get(key);
    if (!ref) {
      ref = this.client.objects
        .create({ obj: { project_id: this.project, object_id: name, val } })
        .then(({ digest }) => (kind === "op" ? opRef : objectRef)(this.project, name, digest));
      ref.catch(() => this.cache.delete(key));
      this.cache.set(key, ref);
    }
    return ref;
  }

  /** An op: its source as a file, then the op object pointing at it. Answers the op's ref. */
  async op(name: string, source: string): Promise<string> {
    const key = `file\u0000${source}`;
    let file = this.cache.get(key);
    if (!file) {
      file = this.client.files
        .create({ project_id: this.project, filename: OP_FILE, file: source, content_type: "text/plain" })
        .then((r) => r.digest);
      file.catch(() => this.cache.delete(key));
      this.cache.set(key, file);
    }
    const digest = await file;
    return this.object(
      name,
      { _type: "CustomWeaveType", weave_type: { type: "Op" }, files: { [OP_FILE]: digest } },
      "op",
    );
  }

  /** One of tracewire's own evaluation ops. */
  ownOp(name: typeof EVALUATE_OP | typeof PREDICT_AND_SCORE_OP | typeof SUMMARIZE_OP): Promise<string> {
    return this.op(name, OWN_SOURCE[name]!);
  }
}

/**
 * The fields of a task object or of `model.attributes` that are recorded on the Model object (functions, `name`,
 * `predict` and `_…` left out), read but not yet serialised: {@link objectFields} does that once the evaluation's
 * tracing is known.
 */
export function pickAttributes(source: object | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!source) return out;
  for (const [key, value] of Object.entries(source)) {
    if (typeof value === "function" || key === "name" || key === "predict" || key.startsWith("_")) continue;
    out[key] = value;
  }
  return out;
}

/**
 * The fields recorded on one of the evaluation's objects (its Model's attributes, a Scorer's, the Evaluation's
 * metadata), as every payload is: serialised whole — so a credential key at the top level is masked like one deeper
 * down — with the configured `redactKeys` and limits, then the `redact` hook (as inputs of `name`). Kept with
 * `captureContent: false`: they describe the model, they are not a row's content. When the hook fails or returns
 * something that is not an object, no field is recorded.
 */
export function objectFields(fields: Record<string, unknown>, name: string): JsonObject {
  rememberCredentials(fields, payloadSettings().redactor);
  const json = redactPayload(fields, "inputs", name);
  return json !== null && typeof json === "object" && !Array.isArray(json) ? json : {};
}

/** Values visited per object by {@link rememberCredentials}: a Model holding a whole SDK client stays cheap. */
const MAX_CREDENTIAL_SCAN = 10_000;

/**
 * Registers the strings under credential keys (`redactKeys`) in an object's fields — a task object's `apiKey`, a
 * client it holds, a scorer's `attributes.api_key` — as known secrets: the object is recorded with them masked, and
 * when a provider's error quotes one bare ("Incorrect API key provided: …") in a failed call's exception or a log
 * line, it is masked there too. Cycle-safe, bounded, and never throws (an unreadable field is skipped).
 */
function rememberCredentials(fields: object, redactor: KeyRedactor): void {
  if (!redactor.active) return;
  const seen = new Set<object>();
  const stack: { value: object; depth: number }[] = [{ value: fields, depth: 0 }];
  while (stack.length > 0 && seen.size < MAX_CREDENTIAL_SCAN) {
    const { value, depth } = stack.pop()!;
    if (seen.has(value)) continue;
    seen.add(value);
    let keys: string[];
    try {
      keys = Object.keys(value);
    } catch {
      continue;
    }
    for (const key of keys) {
      let child: unknown;
      try {
        child = (value as Record<string, unknown>)[key];
      } catch {
        continue;
      }
      if (typeof child === "string") {
        if (redactor.matches(key)) rememberSecret(child);
      } else if (child !== null && typeof child === "object" && depth < 64)
        stack.push({ value: child, depth: depth + 1 });
    }
  }
}

/** The `Model` object: `{_type, _class_name, _bases, name, description, predict: <op ref>, …attributes}`. */
export function modelValue(name: string, predictRef: string, attributes: JsonObject): JsonObject {
  const className = name === "Model" ? "Model" : name;
  return {
    ...attributes,
    _type: className,
    _class_name: className,
    _bases: className === "Model" ? BASES : ["Model", ...BASES],
    name,
    description: null,
    predict: predictRef,
  };
}

/** A scorer object: `{_type, _class_name, _bases: ["Scorer", …], name, score, summarize, column_map, …}`. */
export function scorerValue(
  name: string,
  description: string | null,
  scoreRef: string,
  summarizeRef: string,
  attributes: JsonObject,
): JsonObject {
  return {
    ...attributes,
    _type: name,
    _class_name: name,
    _bases: ["Scorer", ...BASES],
    name,
    description,
    score: scoreRef,
    summarize: summarizeRef,
    column_map: null,
  };
}

/** The `Evaluation` object the UI's evaluations list, comparison page and leaderboards find. */
export function evaluationValue(fields: {
  name: string;
  description: string | null;
  datasetRef: string;
  scorerRefs: string[];
  trials: number;
  metadata: JsonObject | null;
  evaluateRef: string;
  predictAndScoreRef: string;
  summarizeRef: string;
}): JsonObject {
  return {
    _type: "Evaluation",
    _class_name: "Evaluation",
    _bases: BASES,
    name: fields.name,
    description: fields.description,
    dataset: fields.datasetRef,
    scorers: fields.scorerRefs,
    trials: fields.trials,
    evaluation_name: null,
    metadata: fields.metadata,
    preprocess_model_input: null,
    evaluate: fields.evaluateRef,
    predict_and_score: fields.predictAndScoreRef,
    summarize: fields.summarizeRef,
  };
}
