// A traced Node "service": an agent op that retrieves, calls a tool and answers, inside a conversation thread,
// then reacts to its own answer. Run from the repository root:
//
//   TRACEWIRE_BASE_URL=http://127.0.0.1:4319 TRACEWIRE_PROJECT=me/demo npm run example:node-service
//
// Without TRACEWIRE_BASE_URL it prints one warning and runs untraced: the same results, nothing sent.
import { callOf, getCurrentCall, init, op, withAttributes, withThread } from "tracewire";

const tracing = init({ serviceName: "example-node-service" });

const retrieve = op(async function retrieve(query) {
  await new Promise((resolve) => setTimeout(resolve, 20));
  return [`doc about ${query}`, "another doc"];
});

const weather = op(
  function weather(city) {
    return { city, forecast: "sunny", celsius: 21 };
  },
  { name: "tool.weather" },
);

const agent = op(
  async function agent(question) {
    const [docs, tool] = await Promise.all([retrieve(question), weather("Lisbon")]);
    getCurrentCall()?.setDisplayName(`agent: ${question}`);
    return { answer: `${tool.forecast} in ${tool.city}; ${docs.length} documents read`, docs };
  },
  { parameterNames: ["question"] },
);

const result = await withAttributes({ tenant: "acme", release: "2026.11" }, () =>
  withThread("conversation-1", () => agent("What is the weather like?")),
);
console.log(result.answer);

const call = callOf(result);
if (call) {
  await call.react("👍");
  console.log(`call ${call.id} in trace ${call.traceId}: ${call.ref}`);
}
await tracing.shutdown();
console.log("stats:", JSON.stringify(tracing.stats()));
