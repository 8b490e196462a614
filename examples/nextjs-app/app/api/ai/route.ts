import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { streamText } from "ai";
import { withTracing } from "tracewire/next";
import { MODEL } from "../../openai";

export const dynamic = "force-dynamic";

// The Vercel AI SDK in a route handler: the handler returns `streamText(...)`'s own streamed Response. With `ai` 6
// (this app's Node 20 line) the SDK's `experimental_telemetry` spans become calls (operation → model call) under
// the request's call; on `ai` 7 (Node ≥ 22), add `registerTelemetry(tracewireTelemetry())` to instrumentation.ts.
// Either way they end when the stream has been read, and are flushed with the request.
const provider = createOpenAICompatible({
  name: "openai",
  baseURL: process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1",
  apiKey: process.env.OPENAI_API_KEY ?? "unset",
  includeUsage: true,
});

export const POST = withTracing(async (request: Request) => {
  const { question } = (await request.json()) as { question?: string };
  const result = streamText({
    model: provider(MODEL),
    prompt: question ?? "Hello",
    experimental_telemetry: { isEnabled: true, functionId: "ai-answer" },
  });
  return result.toTextStreamResponse();
});
