import { op } from "tracewire";
import { MODEL, openai } from "../openai";

export const dynamic = "force-dynamic";

// A server component that calls a traced function: no withTracing needed. Its calls nest under Next's request
// span and are sent when the request ends.
const answer = op(
  async function answer(question: string) {
    const completion = await openai().chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: question }],
    });
    return completion.choices[0]?.message.content ?? "";
  },
  { name: "answer", parameterNames: ["question"] },
);

export default async function AnswerPage() {
  const text = await answer("What is the weather in Lisbon?");
  return (
    <main>
      <h1>Answer</h1>
      <p id="answer">{text}</p>
    </main>
  );
}
