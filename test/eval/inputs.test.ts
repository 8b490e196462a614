/**
 * What `evaluate()` accepts: datasets as arrays, async iterables, JSONL files, `{ name, rows }` and dataset refs
 * (rows line up by digest whichever form brought them); tasks as functions, ops (recorded once) and objects with
 * `predict` (their fields on the Model object); portable mode (`export: "otlp"`) still records the evaluation on
 * the native calls route; bad options are typed errors that say what to fix.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  contains,
  EvaluationLogger,
  evaluate,
  exactMatch,
  jsonParses,
  matchesSchema,
  numericTolerance,
} from "../../src/eval/index.js";
import { describeEval } from "../../src/eval/vitest.js";
import { init, op, ValidationError } from "../../src/index.js";
import { childrenOf, opName, quiet, setupEval } from "./support.js";

const setup = setupEval("acme/inputs");
const dir = mkdtempSync(join(tmpdir(), "tw-eval-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ROWS = [
  { q: "one", expected: 3 },
  { q: "three", expected: 5 },
];
const task = function len(row: { q: string }) {
  return row.q.length;
};
const right = function right({ output, row }: { output: number; row: { expected: number } }) {
  return output === row.expected;
};
const base = { task, scorers: [right], progress: false as const };

describe("datasets", () => {
  it("takes an array, an async iterable, a JSONL file, { name, rows } and a dataset ref: the same rows line up", async () => {
    const fromArray = await evaluate({ ...base, name: "forms", dataset: ROWS });
    async function* generate() {
      yield* ROWS;
    }
    const fromIterable = await evaluate({ ...base, name: "forms", dataset: generate() });
    const file = join(dir, "capitals.jsonl");
    writeFileSync(file, `${ROWS.map((r) => JSON.stringify(r)).join("\n")}\n\n`);
    const fromFile = await evaluate<{ q: string; expected: number }, number>({ ...base, name: "forms", dataset: file });
    const named = await evaluate({ ...base, name: "forms", dataset: { name: "numbers", rows: ROWS } });
    const fromRef = await evaluate<{ q: string; expected: number }, number>({
      ...base,
      name: "forms",
      dataset: fromArray.refs.dataset,
    });
    const digests = (r: typeof fromArray) => r.rows.map((row) => row.rowDigest);
    for (const other of [fromIterable, fromFile, named, fromRef]) expect(digests(other)).toEqual(digests(fromArray));
    expect(fromArray.refs.dataset).toMatch(/\/object\/forms-dataset:\w+$/);
    expect(fromIterable.refs.dataset).toBe(fromArray.refs.dataset);
    expect(fromFile.refs.dataset).toMatch(/\/object\/capitals:\w+$/);
    expect(named.refs.dataset).toMatch(/\/object\/numbers:\w+$/);
    expect(fromRef.refs.dataset).toBe(fromArray.refs.dataset);
    expect(fromRef.rows.map((r) => r.row)).toEqual(ROWS);
    expect(fromArray.summary.right).toEqual({ true_count: 2, true_fraction: 1 });
  });

  it("publishes a big dataset in chunks with every row's digest", async () => {
    const rows = Array.from({ length: 1203 }, (_, i) => ({ q: `row ${i}`, expected: String(i).length + 4 }));
    const result = await evaluate({ ...base, name: "big", dataset: rows, concurrency: 32 });
    expect(new Set(result.rows.map((r) => r.rowDigest)).size).toBe(1203);
    const { vals } = await setup.client.refs.readBatch({ refs: [result.rows[1202]!.rowRef] });
    expect(vals).toEqual([rows[1202]]);
  });

  it("says what is wrong with a bad dataset", async () => {
    await expect(
      evaluate<(typeof ROWS)[number], number>({ ...base, name: "bad", dataset: [] as never }),
    ).rejects.toThrow(/the dataset has no rows/);
    await expect(
      evaluate<(typeof ROWS)[number], number>({ ...base, name: "bad", dataset: [1, 2] as never }),
    ).rejects.toThrow(/every dataset row must be an object of fields, but row 0 is number/);
    const file = join(dir, "broken.jsonl");
    writeFileSync(file, '{"q":"one","expected":3}\n{"q": oops}\n');
    await expect(
      evaluate<(typeof ROWS)[number], number>({ ...base, name: "bad", dataset: file as never }),
    ).rejects.toThrow(/broken\.jsonl line 2 is not JSON/);
    await expect(
      evaluate<(typeof ROWS)[number], number>({ ...base, name: "bad", dataset: join(dir, "missing.jsonl") as never }),
    ).rejects.toThrow(/does not exist/);
  });
});

describe("tasks", () => {
  it("records an op used as the task once, as the model's call", async () => {
    const traced = op(async function answer(row: { q: string }) {
      return row.q.length;
    });
    const result = await evaluate({ ...base, name: "op-task", dataset: ROWS, task: traced });
    const calls = await setup.trace(result.traceId);
    expect(calls.filter((c) => c.op_name === "answer")).toEqual([]);
    const models = calls.filter((c) => opName(c) === "answer.predict");
    expect(models).toHaveLength(2);
    expect(models.every((m) => childrenOf(calls, m).length === 0)).toBe(true);
  });

  it("records an object with predict as a Model with its fields", async () => {
    const bot = {
      name: "SupportBot",
      model: "gpt-4o-mini",
      temperature: 0,
      predict(row: { q: string }) {
        return row.q.length + this.temperature;
      },
    };
    const result = await evaluate({ ...base, name: "object-task", dataset: ROWS, task: bot });
    const { vals } = await setup.client.refs.readBatch({ refs: [result.refs.model] });
    expect(vals[0]).toMatchObject({
      _type: "SupportBot",
      _class_name: "SupportBot",
      _bases: ["Model", "Object", "BaseModel"],
      name: "SupportBot",
      model: "gpt-4o-mini",
      temperature: 0,
      predict: expect.stringMatching(/\/op\/SupportBot\.predict:\w+$/),
    });
    expect(result.summary.right).toEqual({ true_count: 2, true_fraction: 1 });
  });

  it("says what is wrong with bad options", async () => {
    const bad = (options: object) => evaluate({ ...base, name: "x", dataset: ROWS, ...options } as never);
    await expect(bad({ task: 42 })).rejects.toThrow(ValidationError);
    await expect(bad({ name: "" })).rejects.toThrow(/name must be a non-empty string/);
    await expect(bad({ scorers: [(x: unknown) => x] })).rejects.toThrow(/scorer 0 is an anonymous function/);
    await expect(bad({ scorers: [right, right] })).rejects.toThrow(/two scorers are named right/);
    await expect(bad({ trials: 0 })).rejects.toThrow(/trials must be a whole number of at least 1/);
    await expect(bad({ concurrency: { task: -1 } })).rejects.toThrow(/concurrency\.task/);
    await expect(bad({ retry: { attempts: 0 } })).rejects.toThrow(/retry\.attempts/);
  });
});

describe("options evaluate() does not know", () => {
  it("are an error naming the option and the one meant, not ignored (a .mjs file has no type check)", async () => {
    const bad = (options: object) => evaluate({ ...base, name: "x", dataset: ROWS, ...options } as never);
    // The vendor's spelling: ignored, it ran one trial without a word.
    const err = await bad({ nTrials: 3 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ message: expect.stringMatching(/unknown option nTrials \(did you mean trials\?\)/) });
    await expect(bad({ scorer: [right] })).rejects.toThrow(/unknown option scorer \(did you mean scorers\?\)/);
    await expect(bad({ maxConcurrency: 2 })).rejects.toThrow(/did you mean concurrency\?/);
    await expect(bad({ displayname: "n" })).rejects.toThrow(/did you mean displayName\?/);
    await expect(bad({ colour: "red" })).rejects.toThrow(/unknown option colour\. The options are name, /);
  });

  it("the built-in scorers, EvaluationLogger and describeEval refuse theirs too (a typo scored every row wrong)", () => {
    // `feild` compared the default field, `expected`: every row scored against the wrong value, without a word.
    expect(() => exactMatch({ feild: "answer" } as never)).toThrow(ValidationError);
    expect(() => exactMatch({ feild: "answer" } as never)).toThrow(
      /^exactMatch\(\): unknown option feild \(did you mean field\?\)\. The options are name, field, select, ignoreCase, trim\.$/,
    );
    expect(() => contains({ ignoreCase: true } as never)).toThrow(/contains\(\): unknown option ignoreCase/);
    expect(() => numericTolerance({ tolerence: 0.1 } as never)).toThrow(/did you mean tolerance\?/);
    expect(() => jsonParses({ field: "x" } as never)).toThrow(/jsonParses\(\): unknown option field/);
    expect(() => matchesSchema(() => true, { nmae: "s" } as never)).toThrow(/did you mean name\?/);
    expect(exactMatch({ field: "answer", ignoreCase: true, name: "em" }).name).toBe("em");
    expect(() => new EvaluationLogger({ name: "x", modle: "m" } as never)).toThrow(
      /new EvaluationLogger\(\): unknown option modle \(did you mean model\?\)/,
    );
    expect(() => describeEval("x", { threshold: { a: 1 } } as never, () => {})).toThrow(
      /describeEval\(\): unknown option threshold \(did you mean thresholds\?\)/,
    );
  });
});

describe("portable mode", () => {
  it("records the evaluation natively (refs as JSON inputs) while other spans go by OTLP", async () => {
    await setup.tracing.shutdown();
    const portable = init({
      baseUrl: setup.service.url,
      project: setup.project,
      env: {},
      export: "otlp",
      logger: quiet,
    });
    try {
      const traced = op(async function helper(n: number) {
        return n;
      });
      const result = await evaluate<(typeof ROWS)[number], number>({
        ...base,
        name: "portable",
        dataset: ROWS,
        task: async function viaHelper(row: { q: string }) {
          return traced(row.q.length);
        },
      });
      await portable.flush();
      const calls = await setup.trace(result.traceId);
      const root = calls.find((c) => c.id === result.callId)!;
      expect(root.inputs).toEqual({ self: result.refs.evaluation, model: result.refs.model });
      const helpers = calls.filter((c) => c.op_name === "helper");
      expect(helpers).toHaveLength(2);
      // The op went by OTLP (its inputs arrive as the portable attributes), under the model's call.
      const model = calls.find((c) => c.id === helpers[0]!.parent_id)!;
      expect(opName(model)).toBe("viaHelper.predict");
      expect(result.summary.right).toEqual({ true_count: 2, true_fraction: 1 });
    } finally {
      await portable.shutdown();
      setup.tracing = init({ baseUrl: setup.service.url, project: setup.project, env: {}, logger: quiet });
    }
  });
});
