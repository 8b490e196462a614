/**
 * A failure of tracewire's own code outside the span processor (a wrapper, an integration, op()) is what
 * `stats().internalErrors` counts, as the docs say (troubleshooting.md, "Internal errors"): the caller's work goes on
 * untraced, one line is logged, and the count goes up. Before, only the processor's own failures were counted. A
 * caller's value that refuses to be read (a hostile Proxy) is logged but is not tracewire's failure: not counted.
 */
import OpenAI from "openai";
import { afterEach, beforeEach, expect, it } from "vitest";
import { init, op, type TracewireHandle } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { setupOpenAIServer } from "../instrument/support.js";
import { TracingDouble } from "../support/tracing-double.js";
import { recordingLogger } from "../support/tracing-session.js";

const openai = setupOpenAIServer();
let double: TracingDouble;
let tracing: TracewireHandle | undefined;
let lines: { message: string }[];

beforeEach(async () => {
  double = await TracingDouble.start();
  const recording = recordingLogger();
  lines = recording.lines;
  tracing = init({ baseUrl: double.url, project: "acme/demo", env: {}, logger: recording.logger });
});
afterEach(async () => {
  await tracing?.shutdown();
  tracing = undefined;
  await double.close();
});

it("op(): a result whose `then` cannot be read is returned as is and logged, but not counted (it is the caller's value)", async () => {
  const result = new Proxy(
    {},
    {
      get(_target, key) {
        if (key === "then") throw new Error("no then here");
        return undefined;
      },
    },
  );
  const traced = op(function odd() {
    return result;
  });
  expect(traced()).toBe(result);
  expect(tracing!.stats().internalErrors).toBe(0);
  expect(lines.map((l) => l.message)).toEqual(["[tracewire] Could not observe the result of odd: Error: no then here"]);
});

it("wrapOpenAI: a request tracing fails to start runs untraced, logged once and counted", async () => {
  const client = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: openai.server.baseURL, maxRetries: 0 }));
  // A getter that fails only when read while tracewire builds the call (the copy with stream_options), never for the
  // SDK itself: that failure is tracewire's to absorb.
  const params = {
    model: "gpt-4o-mini",
    stream: true as const,
    get messages() {
      if (new Error().stack?.includes("new ChatCall")) throw new Error("flaky getter");
      return [{ role: "user" as const, content: "hi" }];
    },
  };
  const stream = await client.chat.completions.create(params);
  let chunks = 0;
  for await (const _chunk of stream) chunks++;
  expect(chunks).toBeGreaterThan(0);
  expect(tracing!.stats().internalErrors).toBe(1);
  expect(lines).toHaveLength(1);
  expect(lines[0]!.message).toMatch(/^\[tracewire\] Internal error while tracing a chat completion \(start; /);
});
