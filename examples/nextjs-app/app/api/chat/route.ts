import { getCurrentCall, withAttributes, withThread } from "tracewire";
import { toTextStream, withTracing } from "tracewire/next";
import { MODEL, openai } from "../../openai";

export const dynamic = "force-dynamic";

// One call per request ("POST /api/chat"); the LLM call nests under it. The user and session ids (here from
// headers; in a real app from your auth) go on every call made inside: `user_id` as a call attribute, the session
// as the conversation thread.
export const POST = withTracing(async (request: Request) => {
  const { question } = (await request.json()) as { question?: string };
  const user = request.headers.get("x-user-id") ?? "anonymous";
  const session = request.headers.get("x-session-id") ?? "no-session";
  return withAttributes({ user_id: user }, () =>
    withThread(session, async () => {
      const stream = await openai().chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: question ?? "Hello" }],
        stream: true,
      });
      // The request's call id, for feedback from the browser (see actions.ts).
      const headers = {
        "content-type": "text/plain; charset=utf-8",
        "x-tracewire-call-id": getCurrentCall()?.id ?? "",
      };
      // toTextStream stops the LLM stream when the client goes away, so its call ends in the request's flush.
      return new Response(toTextStream(stream), { headers });
    }),
  );
});
