// The Gemini example's agent (examples/google/index.mjs): an op that holds a chat with a (wrapped) `@google/genai`
// client, runs the function the model calls, then streams the answer to the function's result. Returns the answer
// and the Call of the streamed message.
import { callOf, op } from "tracewire";

const tools = [
  {
    functionDeclarations: [
      {
        name: "get_weather",
        description: "Current weather of a city",
        parametersJsonSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    ],
  },
];

const getWeather = op(({ city }) => `sunny in ${city}, 21 °C`, { name: "tool.get_weather" });

/** Builds the `assistant` op around a wrapped client. `write` receives the streamed text. */
export function makeGeminiAssistant(client, model, write = (text) => process.stdout.write(text)) {
  return op(async function assistant(question) {
    const chat = client.chats.create({
      model,
      config: { systemInstruction: "Answer in one sentence. Use tools when they help.", tools },
    });
    // 1. A message: the model asks for a function call.
    const first = await chat.sendMessage({ message: question });
    const responses = [];
    for (const call of first.functionCalls ?? []) {
      const result = await getWeather(call.args);
      responses.push({ functionResponse: { id: call.id, name: call.name, response: { result } } });
    }
    // 2. The function's result, and the answer streamed back chunk by chunk.
    const stream = await chat.sendMessageStream({ message: responses.length ? responses : question });
    let answer = "";
    for await (const chunk of stream) {
      const text = chunk.text ?? "";
      write(text);
      answer += text;
    }
    write("\n");
    return { answer, llmCall: callOf(stream) };
  });
}
