/**
 * `tracewire/ai` overhead on the AI SDK 6 span mapping (the line `npm run bench` runs on, Node 20; `ai` 7's
 * `registerTelemetry(tracewireTelemetry())` needs Node ≥ 22 and is not benched here): CPU per `generateText` /
 * `streamText` of the real `ai` 6 package through `@ai-sdk/openai-compatible` 2 against the bench's loopback OpenAI
 * server (chat completions, a child process), on two paths — `generateText`, and `streamText` whose `textStream` is
 * read to the end (50 content chunks) — in the five variants of bench/wrapper-harness.mjs. "Unwrapped" is the call
 * without `experimental_telemetry`; "wrapped" the same call with `experimental_telemetry: { isEnabled: true }` under
 * `init()`, whose processor maps the SDK's `ai.generateText`/`ai.streamText` span and its `.doGenerate`/`.doStream`
 * span to two calls on the calls route. The content reference is therefore two nested hand-made spans: the
 * operation (its inputs — system, prompt, settings — and its output — text, finish reason, usage — as JSON) and the
 * model call (GenAI request/response attributes and usage, the messages and the response as JSON).
 *
 * Run: node --expose-gc bench/ai-overhead.mjs [flags of bench/wrapper-harness.mjs]
 */
import { createRequire } from "node:module";
import { generateText, streamText } from "ai6";
import { createOpenAICompatible } from "ai6-openai-compatible";
import { startServer } from "./lib.mjs";
import { benchFetch, contentSpan, runWrapperBench, STREAM_EVENTS, settings } from "./wrapper-harness.mjs";

const aiVersion = createRequire(import.meta.url)("ai6/package.json").version;
const server = await startServer("./openai-server.mjs");

const provider = createOpenAICompatible({
  name: "bench",
  baseURL: `http://127.0.0.1:${server.port}/v1`,
  apiKey: "sk-bench",
  includeUsage: true,
  fetch: benchFetch(),
});
const SYSTEM =
  "You are the support assistant of a travel company. Answer in one short paragraph, in the customer's language, and never invent prices, dates or booking references.";
const PROMPT =
  "Hi! I booked a train from Paris to Milan for next Friday and would like to take my bicycle with me. Is that possible, and do I need to reserve anything extra?";
const SETTINGS = { temperature: 0.2, maxOutputTokens: 256, maxRetries: 0 };
const params = (telemetry) => ({
  model: provider("gpt-4o-mini"),
  system: SYSTEM,
  prompt: PROMPT,
  ...SETTINGS,
  ...(telemetry ? { experimental_telemetry: { isEnabled: true } } : {}),
});

let checksum = 0;

/** `generateText`; returns what the recorded output is made of. */
async function nonStreaming(telemetry) {
  const result = await generateText(params(telemetry));
  checksum += result.text.length;
  return { text: result.text, finishReason: result.finishReason, usage: result.usage, response: result.response };
}

/** `streamText` with its text stream read to the end. */
async function streaming(telemetry) {
  const result = streamText(params(telemetry));
  let deltas = 0;
  let text = "";
  for await (const piece of result.textStream) {
    deltas++;
    text += piece;
  }
  checksum += text.length;
  if (deltas !== STREAM_EVENTS) throw new Error(`stream: ${deltas} text parts seen, expected ${STREAM_EVENTS}`);
  const [finishReason, usage, response] = await Promise.all([result.finishReason, result.usage, result.response]);
  return { text, finishReason, usage, response };
}

/** The call (telemetry off) inside two nested hand-made spans carrying what the mapping records. */
const content = (run, operation) => () =>
  contentSpan(
    operation,
    { "input.value": JSON.stringify({ system: SYSTEM, prompt: PROMPT, settings: SETTINGS }) },
    () =>
      contentSpan(
        "chat gpt-4o-mini",
        {
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": "bench",
          "gen_ai.request.model": "gpt-4o-mini",
          "gen_ai.request.temperature": SETTINGS.temperature,
          "gen_ai.request.max_tokens": SETTINGS.maxOutputTokens,
          "input.value": JSON.stringify({
            model: "gpt-4o-mini",
            messages: [
              { role: "system", content: SYSTEM },
              { role: "user", content: [{ type: "text", text: PROMPT }] },
            ],
          }),
        },
        () => run(false),
        (out) => ({
          "gen_ai.response.id": out.response.id,
          "gen_ai.response.model": out.response.modelId,
          "gen_ai.response.finish_reasons": [out.finishReason],
          "gen_ai.usage.input_tokens": out.usage.inputTokens,
          "gen_ai.usage.output_tokens": out.usage.outputTokens,
          "output.value": JSON.stringify({ text: out.text, finishReason: out.finishReason }),
        }),
      ),
    (out) => ({
      "output.value": JSON.stringify({
        text: out.text,
        finishReason: out.finishReason,
        usage: { inputTokens: out.usage.inputTokens, outputTokens: out.usage.outputTokens },
      }),
    }),
  );

await runWrapperBench({
  name: "`tracewire/ai` (ai 6 spans)",
  server,
  unwrapped: false,
  wrapped: true,
  wrappedItems: { calls: 4 },
  paths: [
    {
      tag: "plain",
      title: "`generateText`",
      calls: settings.calls,
      run: nonStreaming,
      content: content(nonStreaming, "ai.generateText"),
      contentSpans: 2,
    },
    {
      tag: "stream",
      title: `\`streamText\`, ${STREAM_EVENTS} text parts`,
      calls: settings.streamCalls,
      run: streaming,
      content: content(streaming, "ai.streamText"),
      contentSpans: 2,
    },
  ],
  labels: {
    unwrapped: "`ai` 6 without `experimental_telemetry`",
    content:
      "content spans: two nested hand-made spans (operation, model call) carrying the same data (GenAI attributes, inputs and outputs as JSON)",
    wrapped: "**`experimental_telemetry: { isEnabled: true }` under `init()`: two calls on the calls route**",
  },
  heading: "`tracewire/ai` overhead: `ai` 6 spans",
  intro: `The real \`ai\` package (${aiVersion}; \`ai\` 7's telemetry integration needs Node ≥ 22, this bench runs on
${process.version}) through \`@ai-sdk/openai-compatible\` 2 against the bench's loopback OpenAI server (chat completions,
usage chunk asked for): \`generateText\`, and \`streamText\` whose \`textStream\` is read to the end (${STREAM_EVENTS}
content chunks). Request: \`system\` and \`prompt\` (~330 characters), \`temperature\`, \`maxOutputTokens\`. "Wrapped" is
the same call with \`experimental_telemetry: { isEnabled: true }\` under \`init()\`: the SDK builds its own
\`ai.generateText\`/\`ai.streamText\` span and \`.doGenerate\`/\`.doStream\` span (its attributes, its JSON), and
tracewire's processor maps them to two calls on the calls route — so the wrapped row includes the SDK's own
telemetry cost. The content reference is two nested hand-made spans carrying what the two calls record: the
operation (inputs: system, prompt, settings; output: text, finish reason, usage) and the model call (GenAI request and
response attributes, usage, messages and response as JSON).`,
  footer: ({ served }) =>
    `Server: ${served.requests.toLocaleString("en-US")} requests, ${served.streams.toLocaleString("en-US")} streamed, ${served.usageChunks.toLocaleString("en-US")} with the usage chunk.${checksum === -1 ? " " : ""}`,
});
