/**
 * docs/nextjs.md's app files run as the page shows them, outside a Next build: `instrumentation.ts`'s re-export is
 * `register` itself, the route handler answers a real web `Request` with the streamed text and records the request's
 * call with the LLM call under it (the user id and session on the LLM call, not on the request's own call), and the
 * server action reacts to that call. The `@vercel/otel` setup registers a provider of its own, and runs in
 * `npm run test:next` (test/next/e2e.test.ts, `vercel-otel`).
 */
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { wrapOpenAI } from "../../src/instrument/index.js";
import * as next from "../../src/next/index.js";
import { OpenAIServer, TEXT } from "../support/openai-server.js";
import { setupSession } from "../support/tracing-session.js";
import { docBlock, runBlock } from "./snippets.js";

const session = setupSession();
let server: OpenAIServer;

beforeAll(async () => {
  server = await OpenAIServer.start();
});
afterAll(() => server.close());

it("instrumentation.ts re-exports register() from tracewire/next", async () => {
  const declared = await runBlock(docBlock("docs/nextjs.md", "# Next.js (`tracewire/next`)", 1));
  expect(declared.register).toBe(next.register);
});

it("the route handler streams the answer, and the action reacts to the request's call", async () => {
  const openai = wrapOpenAI(new OpenAI({ baseURL: server.baseURL, apiKey: "sk-next-readme" }));
  const { POST } = (await runBlock(docBlock("docs/nextjs.md", "# Next.js (`tracewire/next`)", 3), { openai })) as {
    POST: (request: Request) => Promise<Response>;
  };
  const response = await POST(
    new Request("http://localhost:3000/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json", "x-user-id": "ada", "x-session-id": "session-9" },
      body: JSON.stringify({ question: "Weather in Lisbon?" }),
    }),
  );
  expect(await response.text()).toBe(TEXT);
  const callId = response.headers.get("x-tracewire-call-id");

  const { sendFeedback } = (await runBlock(docBlock("docs/nextjs.md", "# Next.js (`tracewire/next`)", 4))) as {
    sendFeedback: (callId: string, emoji: string) => Promise<unknown>;
  };
  await sendFeedback(callId!, "👍");
  await session.tracing.flush();

  const [request] = session.double.callsNamed("POST /api/chat");
  expect(request?.start?.id).toBe(callId);
  expect(request?.start?.attributes).not.toHaveProperty("user_id");
  const [llm] = session.double.callsNamed("openai.chat.completions.create");
  expect(llm?.start).toMatchObject({
    parent_id: callId,
    thread_id: "session-9",
    attributes: expect.objectContaining({ user_id: "ada" }),
  });
  expect(session.double.callsNamed("action sendFeedback")).toHaveLength(1);
  expect(session.double.feedback.map((f) => [f.weave_ref, f.payload])).toEqual([
    [`weave:///acme/demo/call/${callId}`, { emoji: "👍" }],
  ]);
});
