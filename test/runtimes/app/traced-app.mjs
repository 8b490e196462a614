// The small traced app every runtime runs (test/runtimes/runtimes.test.ts): under an app span of its own, two
// concurrent `outer` ops, each with a nested `inner` op and a wrapped `openai` chat call against the local stand-in.
// Settings are passed explicitly, with `env: {}`: nothing is read from the environment (Deno runs it without
// `--allow-env`).
import { trace } from "@opentelemetry/api";
import OpenAI from "openai";
import { init, op } from "tracewire";
import { wrapOpenAI } from "tracewire/openai";

/**
 * Sets tracing up (safe at module scope: Workers refuses timers and random ids there). `scheduledDelayMillis` is
 * long, so calls reach the service only through a flush — the app's own, or the request's `waitUntil`.
 */
export function setup({ baseUrl, openaiUrl, project, runtime }) {
  const tracing = init({
    baseUrl,
    project,
    env: {},
    serviceName: `runtimes-${runtime}`,
    scheduledDelayMillis: 60_000,
  });
  const client = wrapOpenAI(
    new OpenAI({ apiKey: "local", baseURL: openaiUrl, organization: null, project: null, webhookSecret: null }),
    { env: {} },
  );
  const inner = op(async function inner(question) {
    return question.toUpperCase();
  });
  const outer = op(async function outer(question) {
    const shout = await inner(question);
    const completion = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: question }],
    });
    return { shout, answer: completion.choices[0].message.content };
  });
  const tracer = trace.getTracer("runtime-app");
  /** One run: the app span `app <runtime>` around two concurrent outer ops. */
  const run = () =>
    tracer.startActiveSpan(`app ${runtime}`, async (span) => {
      try {
        return await Promise.all([outer("first"), outer("second")]);
      } finally {
        span.end();
      }
    });
  return { tracing, run };
}
