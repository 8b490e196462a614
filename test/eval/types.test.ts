/**
 * The types of `tracewire/eval` (checked by `npm run typecheck`; the test bodies only run the checks): the row type
 * flows from the dataset into the task and the scorers, the output type from the task into the scorers and the
 * result, and a scorer's return type decides the shape of its summary (`summaryOf`).
 */
import { describe, expectTypeOf, it } from "vitest";
import { type EvaluationResult, evaluate, exactMatch, numericTolerance, summaryOf } from "../../src/eval/index.js";

describe("types", () => {
  it("flow from dataset to task to scorers to result", () => {
    const run = () =>
      evaluate({
        name: "typed",
        dataset: [{ question: "2+2", expected: 4 }],
        task: async (row) => {
          expectTypeOf(row).toEqualTypeOf<{ question: string; expected: number }>();
          return { answer: row.question.length };
        },
        scorers: [
          function right({ output, row }) {
            expectTypeOf(output).toEqualTypeOf<{ answer: number }>();
            return output.answer === row.expected;
          },
          numericTolerance({ select: (o) => (o as { answer: number }).answer }),
        ],
      });
    expectTypeOf(run).returns.resolves.toEqualTypeOf<
      EvaluationResult<{ question: string; expected: number }, { answer: number }>
    >();
  });

  it("summaryOf types a scorer's summary by its return type", () => {
    const exact = exactMatch();
    const score = function score(): { ok: boolean; f1: number } {
      return { ok: true, f1: 1 };
    };
    const result = { summary: {} } as EvaluationResult;
    expectTypeOf(summaryOf(result, exact)).toEqualTypeOf<{ true_count: number; true_fraction: number } | null>();
    expectTypeOf(summaryOf(result, score)).toEqualTypeOf<{
      ok?: { true_count: number; true_fraction: number };
      f1?: { mean: number };
    } | null>();
  });
});
