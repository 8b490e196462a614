// The evaluation itself: 20 addition questions, a task that asks a (wrapped) OpenAI client, and three scorers —
// the built-in numericTolerance, a plain function, and an LLM-as-judge that asks the same client to grade (its
// call, and its tokens, land under the judge's scorer call). Two trials per row.
import { numericTolerance } from "tracewire/eval";

export const QUESTIONS = Array.from({ length: 20 }, (_, i) => {
  const a = 3 + ((i * 7) % 31);
  const b = 5 + ((i * 11) % 23);
  return { question: `What is ${a} + ${b}?`, expected: a + b };
});

/** evaluate() options for the quiz, answered by `client` (an OpenAI client, wrapped with wrapOpenAI). */
export function quizEvaluation(client, model = "quiz-model") {
  const ask = async (messages) => {
    const completion = await client.chat.completions.create({ model, messages });
    return completion.choices[0].message.content ?? "";
  };
  return {
    name: "arithmetic-quiz",
    dataset: QUESTIONS,
    task: async function solver(row) {
      return ask([{ role: "user", content: row.question }]);
    },
    scorers: [
      numericTolerance({ name: "correct" }),
      function concise({ output }) {
        return output.length <= 4;
      },
      async function judge({ output, row }) {
        const verdict = await ask([
          { role: "system", content: "You are a strict grader. Reply PASS or FAIL." },
          { role: "user", content: `Question: ${row.question}\nExpected: ${row.expected}\nAnswer: ${output}` },
        ]);
        return verdict.trim() === "PASS";
      },
    ],
    trials: 2,
    concurrency: 4,
  };
}
