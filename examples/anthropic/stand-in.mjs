// A tiny Anthropic Messages API on 127.0.0.1, so the example runs offline. It knows one tool (get_weather) and
// answers streamed (Anthropic's SSE event types) or not, with usage that includes prompt-cache tokens.
import { createServer } from "node:http";

const USAGE = { input_tokens: 30, cache_creation_input_tokens: 0, cache_read_input_tokens: 120, output_tokens: 14 };

function answerFor(body) {
  const last = body.messages?.at(-1);
  const toolResult = Array.isArray(last?.content) ? last.content.find((b) => b.type === "tool_result") : undefined;
  if (body.tools?.length > 0 && !toolResult) {
    const city = /in ([A-Z][a-z]+)/.exec(JSON.stringify(last?.content ?? ""))?.[1] ?? "Lisbon";
    return { content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city } }], stop: "tool_use" };
  }
  const text = toolResult ? `Right now: ${toolResult.content}. Enjoy your day!` : "Hello from the local stand-in.";
  return { content: [{ type: "text", text }], stop: "end_turn" };
}

export async function startStandIn() {
  const server = createServer(async (req, res) => {
    if (req.method !== "POST" || !req.url.endsWith("/v1/messages")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not found" } }));
      return;
    }
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw);
    const { content, stop } = answerFor(body);
    const message = { id: "msg_local", type: "message", role: "assistant", model: `${body.model}-local` };
    if (!body.stream) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ...message, content, stop_reason: stop, stop_sequence: null, usage: USAGE }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    const start = { ...message, content: [], stop_reason: null, stop_sequence: null };
    send("message_start", { message: { ...start, usage: { ...USAGE, output_tokens: 1 } } });
    content.forEach((block, index) => {
      if (block.type === "text") {
        send("content_block_start", { index, content_block: { type: "text", text: "" } });
        for (const word of block.text.split(/(?= )/)) {
          send("content_block_delta", { index, delta: { type: "text_delta", text: word } });
        }
      } else {
        send("content_block_start", { index, content_block: { ...block, input: {} } });
        const json = JSON.stringify(block.input);
        for (const part of [json.slice(0, 5), json.slice(5)]) {
          send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: part } });
        }
      }
      send("content_block_stop", { index });
    });
    send("ping", {});
    send("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 14 } });
    send("message_stop", {});
    res.end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
