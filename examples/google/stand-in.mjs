// A tiny Gemini API on 127.0.0.1, so the example runs offline: `…/models/{model}:generateContent` and
// `…:streamGenerateContent?alt=sse`, the paths `@google/genai` calls when `httpOptions.baseUrl` points here. It
// knows one function (get_weather): asked with its declaration it answers with a function call; given the function's
// response it answers in text (streamed word by word when asked to). Usage includes cached and thinking tokens.
import { createServer } from "node:http";

const USAGE = { promptTokenCount: 64, cachedContentTokenCount: 32, thoughtsTokenCount: 12 };

function answerFor(body) {
  const last = body.contents?.at(-1);
  const response = last?.parts?.find((p) => p.functionResponse)?.functionResponse;
  const declared = body.tools?.some((t) => t.functionDeclarations?.some((d) => d.name === "get_weather"));
  if (declared && !response) {
    const city = /in ([A-Z][a-z]+)/.exec(JSON.stringify(last?.parts ?? ""))?.[1] ?? "Lisbon";
    return [{ functionCall: { id: "call_1", name: "get_weather", args: { city } } }];
  }
  const text = response ? `Right now: ${response.response?.result}. Enjoy your day!` : "Hello from the local stand-in.";
  return [{ text }];
}

const usage = (candidates) => ({
  ...USAGE,
  candidatesTokenCount: candidates,
  totalTokenCount: USAGE.promptTokenCount + USAGE.thoughtsTokenCount + candidates,
});

export async function startStandIn() {
  const server = createServer(async (req, res) => {
    const match = req.method === "POST" && /\/models\/([^/:]+):(generateContent|streamGenerateContent)/.exec(req.url);
    if (!match) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: 404, message: "not found", status: "NOT_FOUND" } }));
      return;
    }
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw);
    const parts = answerFor(body);
    const meta = { modelVersion: `${match[1]}-local`, responseId: "resp_local" };
    const candidate = (p, finishReason) => ({
      content: { role: "model", parts: p },
      ...(finishReason ? { finishReason } : {}),
      index: 0,
    });
    if (match[2] === "generateContent") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ candidates: [candidate(parts, "STOP")], usageMetadata: usage(9), ...meta }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    const pieces = parts[0].text ? parts[0].text.split(/(?= )/) : [null];
    for (let i = 0; i < pieces.length; i++) {
      const last = i === pieces.length - 1;
      const chunkParts = pieces[i] === null ? parts : [{ text: pieces[i] }];
      // Each chunk carries the running usage total of the request.
      const data = {
        candidates: [candidate(chunkParts, last ? "STOP" : undefined)],
        usageMetadata: usage(i + 1),
        ...meta,
      };
      res.write(`data: ${JSON.stringify(data)}\r\n\r\n`);
      await new Promise((resolve) => setTimeout(resolve, 15));
      if (res.destroyed) return; // the client went away
    }
    res.end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
