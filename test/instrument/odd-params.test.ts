/**
 * Request parameters the spread copy (made to inject `stream_options.include_usage`) would not reproduce: an inherited
 * or non-enumerable `stream: true`. The `openai` SDK streams because it reads `params.stream`; a copy without it would
 * turn the caller's stream into a plain completion. Such requests go as the caller built them, and still stream.
 */
import { afterEach, describe, expect, it } from "vitest";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { collect, MESSAGES, makeClient, setupOpenAIServer, VERSIONS } from "./support.js";

const ctx = setupOpenAIServer();
const session = setupSessionPerTest();
afterEach(() => {
  ctx.server.server.requests.length = 0;
});

const oddParams: [string, () => object][] = [
  [
    "an inherited stream: true",
    () => Object.assign(Object.create({ stream: true }), { model: "gpt-4o-mini", messages: MESSAGES }),
  ],
  [
    "a non-enumerable stream: true",
    () =>
      Object.defineProperty({ model: "gpt-4o-mini", messages: MESSAGES }, "stream", { value: true, enumerable: false }),
  ],
];

describe.each(VERSIONS)("$name", (version) => {
  for (const [name, make] of oddParams) {
    it(`${name}: the wrapped client returns what the unwrapped one returns, and the call is recorded`, async () => {
      const plain = makeClient(version, ctx.server);
      const wrapped = wrapOpenAI(makeClient(version, ctx.server));
      const expected = await plain.chat.completions.create(make() as never);
      const got = await wrapped.chat.completions.create(make() as never);
      expect(Object.getPrototypeOf(got)).toBe(Object.getPrototypeOf(expected));
      const isStream = typeof (expected as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function";
      if (isStream) {
        const [a, b] = await Promise.all([collect(expected as never), collect(got as never)]);
        expect(b).toEqual(a);
      } else {
        expect(got).toEqual(expected);
      }
      // The request went as the caller built it: no stream_options added.
      const bodies = ctx.server.server.requests.map((r) => r.body.toString());
      expect(bodies).toHaveLength(2);
      expect(bodies[1]).toBe(bodies[0]);
      expect(bodies[1]).not.toContain("stream_options");
      const call = await session.only("openai.chat.completions.create");
      expect(call.ends).toBe(1);
    });
  }
});
