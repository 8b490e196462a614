// A tiny OpenAI-compatible chat server on 127.0.0.1 for the evaluation example, so it runs offline. It does
// arithmetic ("What is 17 + 25?"): right most of the time, off by one when the sum is a multiple of 7, and wordy
// ("The answer is 42.") when the first number is even. Asked as a grader (a system message mentioning "grader"),
// it says PASS when the answer in the user message holds the expected number, else FAIL. Usage on every answer.
import { createServer } from "node:http";

const USAGE = { prompt_tokens: 24, completion_tokens: 6, total_tokens: 30 };

function answerFor(messages) {
  const system = messages.find((m) => m.role === "system")?.content ?? "";
  const user = String(messages.findLast((m) => m.role === "user")?.content ?? "");
  if (/grader/i.test(system)) {
    const expected = /Expected: (-?\d+)/.exec(user)?.[1];
    const answer = /Answer: (.*)$/m.exec(user)?.[1] ?? "";
    return expected !== undefined && new RegExp(`\\b${expected}\\b`).test(answer) ? "PASS" : "FAIL";
  }
  const m = /What is (-?\d+) \+ (-?\d+)\?/.exec(user);
  if (!m) return "I can only add.";
  const [a, b] = [Number(m[1]), Number(m[2])];
  const sum = (a + b) % 7 === 0 ? a + b + 1 : a + b;
  return a % 2 === 0 ? `The answer is ${sum}.` : String(sum);
}

export async function startQuizStandIn() {
  const server = createServer(async (req, res) => {
    if (req.method !== "POST" || !req.url.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "not found", type: "invalid_request_error" } }));
      return;
    }
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: "chatcmpl-quiz",
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: `${body.model}-local`,
        choices: [
          { index: 0, message: { role: "assistant", content: answerFor(body.messages ?? []) }, finish_reason: "stop" },
        ],
        usage: USAGE,
      }),
    );
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
