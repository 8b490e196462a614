import OpenAI from "openai";
import { getCurrentCall } from "tracewire";
import { withTracing } from "tracewire/next";
import { wrapOpenAI } from "tracewire/openai";

export const dynamic = "force-dynamic";

let client: OpenAI | undefined;
function openai(): OpenAI {
  // OPENAI_BASE_URL and OPENAI_API_KEY come from the environment (the e2e test points them at a local stand-in).
  client ??= wrapOpenAI(new OpenAI({ apiKey: process.env.OPENAI_API_KEY ?? "unset" }));
  return client;
}

export const POST = withTracing(async (request: Request) => {
  const { question } = (await request.json()) as { question?: string };
  const stream = await openai().chat.completions.create({
    model: process.env.OPENAI_MODEL ?? "gpt-4o-mini",
    messages: [{ role: "user", content: question ?? "Hello" }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for await (const chunk of stream) {
        const text = chunk.choices[0]?.delta?.content;
        if (text) controller.enqueue(encoder.encode(text));
      }
      controller.close();
    },
  });
  // The request's call (this bundle's tracewire sees the processor register() created in instrumentation.ts).
  const headers = new Headers({ "content-type": "text/plain; charset=utf-8" });
  const call = getCurrentCall();
  if (call) headers.set("x-tracewire-call-id", call.id);
  return new Response(body, { headers });
});
