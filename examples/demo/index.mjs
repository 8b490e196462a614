// `npm run demo`: the whole loop on one machine, offline. It starts the local tracing service in-process, runs an
// op-based agent that calls a wrapped OpenAI client (a tool call, then a streamed answer) against a local
// chat-completions stand-in, reacts 👍 to the answer, reads the trace back from the service and prints it as a
// tree, with the viewer's URL. `--serve` keeps the service (and its viewer) running afterwards.
import OpenAI from "openai";
import { init } from "tracewire";
import { TracingClient } from "tracewire/api";
import { wrapOpenAI } from "tracewire/openai";
import { startDevServer } from "../../dist/cli.js";
import { makeAssistant } from "../openai/assistant.mjs";
import { startStandIn } from "../openai/stand-in.mjs";

const serve = process.argv.includes("--serve");
const portArg = process.argv.indexOf("--port");
const port = portArg === -1 ? 4319 : Number(process.argv[portArg + 1]);
if (portArg !== -1 && !(Number.isInteger(port) && port > 0 && port < 65536)) {
  console.error(`--port needs a port number, got ${JSON.stringify(process.argv[portArg + 1] ?? "")}`);
  process.exit(2);
}
const project = "demo/agent";

// An in-memory service on a free port, or with `--serve` on a known one that stays up so you can browse the trace.
let service;
try {
  service = await startDevServer({ port: serve ? port : 0, storage: "memory" });
} catch (err) {
  if (err?.code !== "EADDRINUSE") throw err;
  console.error(`port ${port} is busy (another tracewire dev?): npm run demo -- --serve --port ${port + 1}`);
  process.exit(1);
}
const standIn = await startStandIn();
const tracing = init({ baseUrl: service.url, project, serviceName: "tracewire-demo", env: {} });

const client = wrapOpenAI(new OpenAI({ apiKey: "sk-local-stand-in", baseURL: standIn.url }));
const assistant = makeAssistant(client, "demo-model");

console.log("question: What's the weather in Lisbon?");
process.stdout.write("answer:   ");
const { llmCall } = await assistant("What's the weather in Lisbon?");
await llmCall?.react("👍");
await tracing.flush();

// Read the trace back from the service, the way any client would, and print it as a tree.
const reader = new TracingClient({ baseUrl: service.url, project, env: {} });
const calls = [];
for await (const call of reader.calls.streamQuery({
  filter: { trace_ids: llmCall ? [llmCall.traceId] : [] },
  sort_by: [{ field: "started_at", direction: "asc" }],
  include_feedback: true,
})) {
  calls.push(call);
}

const children = new Map();
for (const call of calls) {
  const siblings = children.get(call.parent_id ?? null) ?? [];
  siblings.push(call);
  children.set(call.parent_id ?? null, siblings);
}
const describe = (call) => {
  const ms = call.ended_at ? Date.parse(call.ended_at) - Date.parse(call.started_at) : undefined;
  const usage = Object.entries(call.summary?.usage ?? {})
    .map(([model, u]) => `${model}: ${u.total_tokens ?? (u.input_tokens ?? 0) + (u.output_tokens ?? 0)} tokens`)
    .join(", ");
  const feedback = (call.summary?.weave?.feedback ?? []).map((f) => f.payload?.emoji ?? f.feedback_type).join(" ");
  return [call.display_name ?? call.op_name, ms === undefined ? "running" : `${ms} ms`, usage, feedback]
    .filter(Boolean)
    .join("  ·  ");
};
const print = (parent, indent) => {
  for (const call of children.get(parent) ?? []) {
    console.log(`${indent}${describe(call)}`);
    print(call.id, `${indent}  `);
  }
};
console.log(`\ntrace ${llmCall?.traceId ?? "(none)"} — ${calls.length} calls`);
print(null, "  ");
// What the agent returned, as recorded: its LLM call is a short reference (tracewire's own objects are never
// recorded whole, and no key is).
const root = calls.find((call) => call.op_name === "assistant");
console.log(`\nrecorded output of assistant: ${JSON.stringify(root?.output)}`);
console.log(
  serve
    ? `viewer: ${service.url}/  (project ${project})`
    : "viewer: closed with the demo; keep it open with `npm run demo -- --serve` (add `--port N` for another port)",
);

await reader.close();
await tracing.shutdown();
await standIn.close();
if (serve) {
  console.log("serving; Ctrl-C to stop");
} else {
  await service.close();
}
