/**
 * docs/openai.md "Tracing OpenAI clients": the block runs verbatim, its `new OpenAI()` configured as users configure it —
 * from `OPENAI_BASE_URL` and `OPENAI_API_KEY`, here the loopback stand-in — and records what the section says: one
 * call per request (a completion and a stream, usage keyed by the model that answered), the streamed text written
 * as it arrives, and the 👍 on the exact completion through `callOf`.
 */
import { expect, it } from "vitest";
import { callOf } from "../../src/index.js";
import { MESSAGES, setupOpenAIServer, summaryOf, usageOfOneRequest } from "../instrument/support.js";
import { MODEL_SUFFIX, TEXT } from "../support/openai-server.js";
import { setupSession } from "../support/tracing-session.js";
import { docBlock, runBlock, withEnv } from "./snippets.js";

const ctx = setupOpenAIServer();
const session = setupSession();

it("the snippet traces a completion and a stream, and reacts to the completion", async () => {
  const written: string[] = [];
  const scope = { messages: MESSAGES, process: { stdout: { write: (text: string) => written.push(text) } } };
  const env = { OPENAI_BASE_URL: ctx.server.baseURL, OPENAI_API_KEY: "sk-readme" };
  const declared = await withEnv(env, () =>
    runBlock(docBlock("docs/openai.md", "# Tracing OpenAI clients (`tracewire/openai`)"), scope),
  );
  expect(written.join("")).toBe(TEXT);

  await session.tracing.flush();
  const calls = session.double.callsNamed("openai.chat.completions.create");
  expect(calls).toHaveLength(2);
  const [completion, stream] = calls.sort((a, b) => a.startSeq! - b.startSeq!);
  for (const call of [completion!, stream!]) {
    expect(call.start?.inputs).toMatchObject({ model: "gpt-4o-mini", messages: MESSAGES });
    expect(summaryOf(call).usage).toEqual(usageOfOneRequest(`gpt-4o-mini${MODEL_SUFFIX}`));
  }
  expect(stream!.start?.inputs).toMatchObject({ stream: true });
  expect(callOf(declared.completion as object)?.id).toBe(completion!.start?.id);
  expect(callOf(declared.stream as object)?.id).toBe(stream!.start?.id);
  expect(session.double.feedback.map((f) => [f.weave_ref, f.payload])).toEqual([
    [`weave:///acme/demo/call/${completion!.start?.id}`, { emoji: "👍" }],
  ]);
});
