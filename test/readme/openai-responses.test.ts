/**
 * The "The Responses API and embeddings" snippet of docs/openai.md runs verbatim against a wrapped `openai` client and the
 * loopback server, and records the calls the section describes: a response, a streamed response and an embeddings
 * call, each with the op name, output and usage it says.
 */
import { expect, it } from "vitest";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { makeClient, setupOpenAIServer, summaryOf, VERSIONS } from "../instrument/support.js";
import { RESPONSE_TEXT } from "../support/openai-responses-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { docBlock, runBlock } from "./snippets.js";

const ctx = setupOpenAIServer();
const session = setupSessionPerTest();

it("the Responses API and embeddings snippet records a response, a stream and an embeddings call", async () => {
  const client = wrapOpenAI(makeClient(VERSIONS[0]!, ctx.server));
  const printed: string[] = [];
  const written: string[] = [];
  await runBlock(docBlock("docs/openai.md", "## The Responses API and embeddings"), {
    client,
    console: { log: (text: string) => printed.push(text) },
    process: { stdout: { write: (text: string) => written.push(text) } },
  });
  expect(printed).toEqual([RESPONSE_TEXT]);
  expect(written.join("")).toBe(RESPONSE_TEXT);

  await session.tracing.flush();
  const responses = session.double.callsNamed("openai.responses.create");
  expect(responses).toHaveLength(2);
  for (const call of responses) {
    expect((call.end!.output as { output_text?: string; status: string }).status).toBe("completed");
    expect(summaryOf(call).usage).toBeDefined();
  }
  const embeddings = await session.only("openai.embeddings.create");
  expect(embeddings.end!.output).toMatchObject({ count: 2, dimensions: 8 });
  expect(JSON.stringify(embeddings.end!.output)).not.toContain('embedding"');
});
