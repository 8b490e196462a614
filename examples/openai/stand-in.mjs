// A tiny OpenAI-compatible chat server on 127.0.0.1, so the example runs offline. It knows one tool
// (get_weather), answers streamed or not, and sends a usage chunk only when asked for — like the real API. A
// question that says "slowly" gets a long answer, one word every 100 ms (to try a client that leaves mid-stream).
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

export async function startStandIn() {
  let closedEarly = 0;
  const server = createServer(async (req, res) => {
    if (req.method !== "POST" || !req.url.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "not found", type: "invalid_request_error" } }));
      return;
    }
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw);
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
