/**
 * The loopback OpenAI stand-in ({@link OpenAIServer}) with one more scripted model for agent runs: `m-handoff`
 * answers a Responses request that offers a `transfer_to_<agent>` tool with a call of that tool (a handoff), non-streamed
 * or streamed; everything else is the stand-in's own answer (text, the `get_weather` / `get_time` tool calls, errors,
 * slow streams).
 */
import type { ServerResponse } from "node:http";
import { RESPONSE_CREATED, RESPONSE_USAGE } from "./openai-responses-server.js";
import { OpenAIServer } from "./openai-server.js";
import type { RecordedRequest } from "./server.js";

type Body = Record<string, unknown>;

export const HANDOFF_MODEL = "m-handoff";

/** The stand-in, answering `m-handoff` as a handoff. */
export async function startAgentsServer(): Promise<OpenAIServer> {
  const stand = await OpenAIServer.start();
  // The stand-in's own answer for everything else (the same route, registered by OpenAIServer.start()).
  const answer = (stand as unknown as { answer(req: RecordedRequest, res: ServerResponse): Promise<void> }).answer.bind(
    stand,
  );
  stand.server.on("POST", /^(\/[\w.-]+)*\/(responses|embeddings)\/?$/, async (req, res) => {
    const body = (req.json ?? {}) as Body;
    const transfer = transferTool(body);
    if (body.model === HANDOFF_MODEL && transfer !== undefined && /\/responses\/?$/.test(req.path))
      return answerHandoff(body, transfer, res);
    return answer(req, res);
  });
  return stand;
}

/** The `transfer_to_*` tool the request offers, unless its input already holds that call's output. */
function transferTool(body: Body): string | undefined {
  const tools = Array.isArray(body.tools) ? (body.tools as Body[]) : [];
  const name = tools.map((t) => t.name).find((n): n is string => typeof n === "string" && n.startsWith("transfer_to_"));
  const input = Array.isArray(body.input) ? (body.input as Body[]) : [];
  return input.some((item) => item.type === "function_call_output") ? undefined : name;
}

function handoffResponse(body: Body, name: string, status: string, done: boolean): Body {
  return {
    id: "resp_handoff_1",
    object: "response",
    created_at: RESPONSE_CREATED,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: null,
    model: `${HANDOFF_MODEL}-2024-07-18`,
    output: done ? [handoffCall(name)] : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    service_tier: "default",
    temperature: 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: body.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage: done ? RESPONSE_USAGE : null,
    metadata: {},
  };
}

function handoffCall(name: string): Body {
  return {
    id: "fc_handoff",
    type: "function_call",
    status: "completed",
    call_id: "call_handoff",
    name,
    arguments: "{}",
  };
}

function answerHandoff(body: Body, name: string, res: ServerResponse): void {
  if (body.stream !== true) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(handoffResponse(body, name, "completed", true)));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let sequence = 0;
  const send = (type: string, fields: Body) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
  send("response.created", { response: handoffResponse(body, name, "in_progress", false) });
  send("response.output_item.added", { output_index: 0, item: { ...handoffCall(name), arguments: "" } });
  send("response.function_call_arguments.delta", { item_id: "fc_handoff", output_index: 0, delta: "{}" });
  send("response.function_call_arguments.done", { item_id: "fc_handoff", output_index: 0, arguments: "{}" });
  send("response.output_item.done", { output_index: 0, item: handoffCall(name) });
  send("response.completed", { response: handoffResponse(body, name, "completed", true) });
  res.end();
}
