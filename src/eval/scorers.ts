/**
 * Scorers as an evaluation runs them: named (a function's name, or the object's `name`), published (a function as
 * an op; an object as a `Scorer` object with its `score` op), and called inside their own call under the row's
 * `predict_and_score`. A scorer that throws scores null on that row (left out of the summary) and is reported
 * once per scorer, never once per row.
 */
import { ValidationError } from "../errors.js";
import { unwrapOp } from "../tracing/op.js";
import { objectFields, type Publisher, pickAttributes, safeName, scorerValue, sourceOf } from "./objects.js";
import type { AnyScorer, ScorerInput, ScoreValue } from "./types.js";

/** A scorer ready to run. */
export interface PreparedScorer {
  /** The scorer's name: its key in `scores` and in the summary. */
  name: string;
  /** How the Evaluation object lists it: the op ref (functions) or the Scorer object ref. */
  ref: string;
  /** The op ref its calls are recorded under. */
  opRef: string;
  /** The Scorer object ref, given to its calls as `self` (objects only). */
  selfRef?: string;
  // biome-ignore lint/suspicious/noExplicitAny: the user's scorer, called with the input it was declared for.
  score: (input: ScorerInput<any, any>) => unknown;
  summarize?: ((scores: never[]) => unknown) | undefined;
}

/** What a scorer is before publishing: checked and named. */
export interface ScorerSpec {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: see PreparedScorer.score.
  score: (input: ScorerInput<any, any>) => unknown;
  summarize?: ((scores: never[]) => unknown) | undefined;
  /** Its description and fields, serialised when it is published (objects.ts `objectFields`). */
  object?: { description: string | null; attributes: Record<string, unknown> };
}

/** Checks the scorers and names them; duplicate names are an error (they would share a summary entry). */
export function specifyScorers(scorers: readonly AnyScorer[] | undefined): ScorerSpec[] {
  if (scorers === undefined) return [];
  if (!Array.isArray(scorers))
    throw new ValidationError(
      "evaluate(): scorers must be an array of functions or { name, score } objects.",
      "scorers",
    );
  const specs = scorers.map((scorer, i): ScorerSpec => {
    if (typeof scorer === "function") {
      const op = unwrapOp(scorer);
      const raw = op?.opName ?? scorer.name;
      if (!raw) {
        throw new ValidationError(
          `evaluate(): scorer ${i} is an anonymous function; its name is the scorer's name. Use a named function (function exactMatch(…) {…}) or { name, score }.`,
          `scorers[${i}]`,
        );
      }
      return { name: safeName(raw, `scorer${i}`), score: (op?.fn ?? scorer) as ScorerSpec["score"] };
    }
    if (scorer === null || typeof scorer !== "object" || typeof scorer.score !== "function") {
      throw new ValidationError(
        `evaluate(): scorer ${i} must be a function or an object with name and score(), got ${scorer === null ? "null" : typeof scorer}.`,
        `scorers[${i}]`,
      );
    }
    if (typeof scorer.name !== "string" || scorer.name.trim() === "")
      throw new ValidationError(`evaluate(): scorer ${i} needs a non-empty name.`, `scorers[${i}].name`);
    if (scorer.summarize !== undefined && typeof scorer.summarize !== "function")
      throw new ValidationError(`evaluate(): scorer ${scorer.name}'s summarize must be a function.`, `scorers[${i}]`);
    const op = unwrapOp(scorer.score);
    return {
      name: safeName(scorer.name, `scorer${i}`),
      score: (op?.fn ?? scorer.score.bind(scorer)) as ScorerSpec["score"],
      summarize: scorer.summarize?.bind(scorer) as ScorerSpec["summarize"],
      object: { description: scorer.description ?? null, attributes: pickAttributes(scorer.attributes) },
    };
  });
  const seen = new Set<string>();
  for (const spec of specs) {
    if (seen.has(spec.name))
      throw new ValidationError(
        `evaluate(): two scorers are named ${spec.name}; give each a distinct name.`,
        "scorers",
      );
    seen.add(spec.name);
  }
  return specs;
}

/** Publishes each scorer: its score op, and for objects the Scorer object (with a summarize op). */
export async function publishScorers(
  specs: ScorerSpec[],
  publisher: Publisher,
  captureCode: boolean,
): Promise<PreparedScorer[]> {
  return Promise.all(
    specs.map(async (spec): Promise<PreparedScorer> => {
      if (!spec.object) {
        const opRef = await publisher.op(spec.name, sourceOf(spec.score, captureCode));
        return { name: spec.name, ref: opRef, opRef, score: spec.score, summarize: spec.summarize };
      }
      const [opRef, summarizeRef] = await Promise.all([
        publisher.op(`${spec.name}.score`, sourceOf(spec.score, captureCode)),
        publisher.op(
          `${spec.name}.summarize`,
          spec.summarize ? sourceOf(spec.summarize, captureCode) : "// the service's summary rules (autoSummarize)\n",
        ),
      ]);
      const selfRef = await publisher.object(
        spec.name,
        scorerValue(
          spec.name,
          spec.object.description,
          opRef,
          summarizeRef,
          objectFields(spec.object.attributes, spec.name),
        ),
      );
      return { name: spec.name, ref: selfRef, opRef, selfRef, score: spec.score, summarize: spec.summarize };
    }),
  );
}

/**
 * Turns what scorer `name` returned into a score: undefined becomes null; anything else is kept as given, except a
 * value JSON has no form for (a BigInt or a Symbol anywhere in it, a function): recorded it would become a string (or
 * nothing) and silently drop out of the summary, so it is a `ValidationError` saying how to return it instead — the
 * row's score is then null and the error reported once, as for a scorer that throws.
 */
export function asScore(value: unknown, name: string): ScoreValue | null {
  return checkScore(value, `evaluate(): scorer ${name} returned`, `scorers.${name}`);
}

/**
 * `value` as a score (undefined → null), or a `ValidationError` — `what` says where it came from, `setting` names
 * the option — when JSON has no form for it (see {@link asScore}). `logScore` checks what it is given with it.
 */
export function checkScore(value: unknown, what: string, setting: string): ScoreValue | null {
  if (value === undefined) return null;
  const bad = notJson(value, "", new Set(), 0);
  if (bad) {
    const where = bad.at === "" ? "" : ` at ${bad.at.slice(1)}`;
    throw new ValidationError(
      `${what} a ${bad.type}${where}; a score is a number, a boolean, an object of those, or null (no verdict).${bad.type === "bigint" ? " Convert it with Number(value)." : ""}`,
      setting,
    );
  }
  return value as ScoreValue;
}

/** The first value without a JSON form in a score (its path and type), following plain data only. */
function notJson(
  value: unknown,
  at: string,
  seen: Set<object>,
  depth: number,
): { at: string; type: string } | undefined {
  const type = typeof value;
  // A function inside an object (a method-like field) is left out by the serializer; one returned as the score is not.
  if (type === "bigint" || type === "symbol" || (type === "function" && at === "")) return { at, type };
  if (value === null || type !== "object" || seen.has(value as object) || depth >= 64) return undefined;
  seen.add(value as object);
  let entries: [string, unknown][];
  try {
    entries = Object.entries(value as object);
  } catch {
    return undefined; // unreadable: the payload serializer decides what it records
  }
  for (const [key, child] of entries) {
    const found = notJson(child, `${at}.${key}`, seen, depth + 1);
    if (found) return found;
  }
  return undefined;
}
