// The example's agent, shared with `npm run demo`: an op that asks a (wrapped) OpenAI client, runs the tool the model
// asks for, then streams the final answer. Returns the answer and the Call of the streamed LLM request.
import { callOf, op } from "tracewire";

const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather of a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];

const getWeather = op(({ city }) => `sunny in ${city}, 21 °C`, { name: "tool.get_weather" });

/** Builds the `assistant` op around a wrapped client. `write` receives the streamed text. */
export function makeAssistant(client, model, write = (text) => process.stdout.write(text)) {
  return op(
    async function assistant(question) {
      const messages = [
        { role: "system", content: "Answer in one sentence. Use tools when they help." },
        { role: "user", content: question },
      ];
      // 1. A non-streamed request: the model asks for a tool.
      const first = await client.chat.completions.create({ model, messages, tools });
      const message = first.choices[0].message;
      messages.push(message);
      for (const call of message.tool_calls ?? []) {
        messages.push({
          role: "tool",
          tool_call_id: call.id,
          content: getWeather(JSON.parse(call.function.arguments)),
        });
      }
      // 2. A streamed answer: tracewire asks for usage and hides the extra chunk from this loop.
      const stream = await client.chat.completions.create({ model, messages, stream: true });
      let answer = "";
      for await (const chunk of stream) {
        const piece = chunk.choices[0]?.delta?.content ?? "";
        answer += piece;
        write(piece);
      }
      write("\n");
      return { answer, llmCall: callOf(stream) };
    },
    { parameterNames: ["question"] },
  );
}
