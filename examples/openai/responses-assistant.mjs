// The Responses API example's agent (examples/openai/responses.mjs): an op that asks a (wrapped) OpenAI client
// through `client.responses.create`, runs the function the model calls, then streams the final answer. Returns the
// answer and the Call of the streamed request.
import { callOf, op } from "tracewire";

const tools = [
  {
    type: "function",
    name: "get_weather",
    description: "Current weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    strict: false,
  },
];

const getWeather = op(({ city }) => `sunny in ${city}, 21 °C`, { name: "tool.get_weather" });

/** Builds the `assistant` op around a wrapped client. `write` receives the streamed text. */
export function makeResponsesAssistant(client, model, write = (text) => process.stdout.write(text)) {
  return op(async function assistant(question) {
    const instructions = "Answer in one sentence. Use tools when they help.";
    const input = [{ role: "user", content: question }];
    // 1. A non-streamed request: the model asks for a tool.
    const first = await client.responses.create({ model, instructions, input, tools });
    for (const item of first.output) {
      if (item.type !== "function_call") continue;
      input.push(item, {
        type: "function_call_output",
        call_id: item.call_id,
        output: await getWeather(JSON.parse(item.arguments)),
      });
    }
    // 2. A streamed request with the tool's result: typed events, read to the end.
    const stream = await client.responses.create({ model, instructions, input, tools, stream: true });
    let answer = "";
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") {
        write(event.delta);
        answer += event.delta;
      }
    }
    write("\n");
    return { answer, llmCall: callOf(stream) };
  });
}
