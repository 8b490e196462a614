// A tiny OpenAI-compatible server on 127.0.0.1, so the examples run offline. Chat completions (`/chat/completions`)
// and the Responses API (`/responses`): it knows one tool (get_weather), answers streamed or not, and sends a usage
// chunk only when asked for — like the real API. A chat question that says "slowly" gets a long answer, one word
// every 100 ms (to try a client that leaves mid-stream).
import { createServer } from "node:http";

const USAGE = {
  prompt_tokens: 42,
  completion_tokens: 12,
  total_tokens: 54,
  prompt_tokens_details: { cached_tokens: 0 },
};

function answerFor(body) {
  const last = body.messages?.at(-1);
  if (Array.isArray(body.tools) && last?.role !== "tool") {
    const city = /in ([A-Z][a-z]+)/.exec(String(last?.content ?? ""))?.[1] ?? "Lisbon";
    return { toolCall: { id: "call_1", name: "get_weather", arguments: JSON.stringify({ city }) } };
  }
  if (/slowly/.test(String(last?.content ?? ""))) return { text: "and so on ".repeat(100).trim(), pace: 100 };
  const weather = body.messages?.findLast?.((m) => m.role === "tool")?.content;
  return { text: weather ? `Right now: ${weather}. Enjoy your day!` : "Hello from the local stand-in." };
}

const RESPONSE_USAGE = {
  input_tokens: 42,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 12,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 54,
};

/** Answers `POST /responses`: a function call when tools are offered and no tool output came back, else text. */
async function answerResponses(body, res) {
  const input = Array.isArray(body.input) ? body.input : [{ role: "user", content: body.input }];
  const toolOutput = input.findLast((item) => item.type === "function_call_output")?.output;
  const asked = String(input.findLast((item) => item.role === "user")?.content ?? "");
  const city = /in ([A-Z][a-z]+)/.exec(asked)?.[1] ?? "Lisbon";
  const call = Array.isArray(body.tools) && toolOutput === undefined;
  const text = toolOutput ? `Right now: ${toolOutput}. Enjoy your day!` : "Hello from the local stand-in.";
  const message = (content) => ({ id: "msg_local", type: "message", status: "completed", role: "assistant", content });
  const output = call
    ? [
        {
          id: "fc_local",
          type: "function_call",
          status: "completed",
          call_id: "call_1",
          name: "get_weather",
          arguments: JSON.stringify({ city }),
        },
      ]
    : [message([{ type: "output_text", text, annotations: [] }])];
  const response = (status, items, usage) => ({
    id: "resp_local",
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    model: `${body.model}-local`,
    output: items,
    parallel_tool_calls: true,
    tools: body.tools ?? [],
    usage,
  });
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(response("completed", output, RESPONSE_USAGE)));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  let sequence = 0;
  const send = (type, data) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
  send("response.created", { response: response("in_progress", [], null) });
  if (call) {
    send("response.output_item.added", {
      output_index: 0,
      item: { ...output[0], status: "in_progress", arguments: "" },
    });
    send("response.function_call_arguments.delta", {
      item_id: "fc_local",
      output_index: 0,
      delta: output[0].arguments,
    });
    send("response.output_item.done", { output_index: 0, item: output[0] });
  } else {
    const part = { item_id: "msg_local", output_index: 0, content_index: 0 };
    send("response.output_item.added", { output_index: 0, item: { ...message([]), status: "in_progress" } });
    send("response.content_part.added", { ...part, part: { type: "output_text", text: "", annotations: [] } });
    for (const delta of text.split(/(?= )/)) {
      await new Promise((resolve) => setTimeout(resolve, 15));
      if (res.destroyed) return; // the client went away
      send("response.output_text.delta", { ...part, delta });
    }
    send("response.output_text.done", { ...part, text });
    send("response.content_part.done", { ...part, part: output[0].content[0] });
    send("response.output_item.done", { output_index: 0, item: output[0] });
  }
  send("response.completed", { response: response("completed", output, RESPONSE_USAGE) });
  res.end();
}

export async function startStandIn() {
  let closedEarly = 0;
  const server = createServer(async (req, res) => {
    const responses = req.method === "POST" && req.url.endsWith("/responses");
    if (req.method !== "POST" || !(responses || req.url.endsWith("/chat/completions"))) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "not found", type: "invalid_request_error" } }));
      return;
    }
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw);
    if (responses) return answerResponses(body, res);
    const { text, toolCall, pace = 15 } = answerFor(body);
    const base = { id: "chatcmpl-local", created: Math.floor(Date.now() / 1000), model: `${body.model}-local` };
    const finish = toolCall ? "tool_calls" : "stop";
    if (!body.stream) {
      const message = toolCall
        ? {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: toolCall.id, type: "function", function: { name: toolCall.name, arguments: toolCall.arguments } },
            ],
          }
        : { role: "assistant", content: text };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          ...base,
          object: "chat.completion",
          choices: [{ index: 0, message, finish_reason: finish }],
          usage: USAGE,
        }),
      );
      return;
    }
    const withUsage = body.stream_options?.include_usage === true;
    const send = (choices, extra = {}) =>
      res.write(
        `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices, ...(withUsage ? { usage: null } : {}), ...extra })}\n\n`,
      );
    res.on("close", () => {
      if (!res.writableEnded) closedEarly++;
    });
    res.writeHead(200, { "content-type": "text/event-stream" });
    send([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]);
    for (const word of (text ?? "").split(/(?= )/)) {
      await new Promise((resolve) => setTimeout(resolve, pace));
      if (res.destroyed) return; // the client went away
      send([{ index: 0, delta: { content: word }, finish_reason: null }]);
    }
    send([{ index: 0, delta: {}, finish_reason: finish }]);
    if (withUsage) send([], { usage: USAGE });
    res.end("data: [DONE]\n\n");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    close: () => new Promise((resolve) => server.close(resolve)),
    /** Streamed answers the client closed before their end. */
    get closedEarly() {
      return closedEarly;
    },
  };
}
