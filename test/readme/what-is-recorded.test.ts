/**
 * docs/concepts.md "What is recorded, and what never is": its snippet, run verbatim against a stand-in tracing service, records
 * exactly what its comments say.
 */
import { afterAll, expect, it } from "vitest";
import { init } from "../../src/index.js";
import { TracingDouble } from "../support/tracing-double.js";
import { docBlock, runBlock } from "./snippets.js";

let double: TracingDouble | undefined;
afterAll(async () => {
  await init().shutdown();
  await double?.close();
});

it("the redactKeys snippet records the inputs and output its comments show", async () => {
  double = await TracingDouble.start();
  const snippet = docBlock("docs/concepts.md", "## What is recorded, and what never is");
  process.env.TRACEWIRE_BASE_URL = double.url;
  process.env.TRACEWIRE_PROJECT = "acme/readme";
  try {
    await runBlock(snippet);
  } finally {
    delete process.env.TRACEWIRE_BASE_URL;
    delete process.env.TRACEWIRE_PROJECT;
  }
  await init().flush(); // the snippet's own handle: init() returns the running one
  const [call] = double.callsNamed("signUp");
  const said = (label: string) => JSON.parse(new RegExp(`// ${label}: (.*)`).exec(snippet)![1]!);
  expect(call?.start?.inputs).toEqual(said("inputs"));
  expect(call?.end?.output).toEqual(said("output"));
});
