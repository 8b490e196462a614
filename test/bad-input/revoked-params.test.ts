/**
 * A revoked Proxy as a wrapped method's parameters fails even `Array.isArray`. The wrapped client must fail exactly as
 * the unwrapped one does — the SDK's own error, thrown or rejected the same way — never with tracewire's error from
 * its own check (before: a synchronous TypeError from the wrapper, where `@google/genai` rejects the promise).
 */
import { describe, expect, it } from "vitest";
import { init } from "../../src/index.js";
import { wrapAnthropic } from "../../src/instrument/anthropic.js";
import { wrapGoogleGenAI } from "../../src/instrument/google.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { ANTHROPIC_VERSIONS, makeAnthropic, setupAnthropicServer } from "../instrument/anthropic-support.js";
import { HAS_GOOGLE, makeGoogle, setupGeminiServer } from "../instrument/google-support.js";
import { makeClient, setupOpenAIServer, VERSIONS } from "../instrument/support.js";
import { TracingDouble } from "../support/tracing-double.js";

/** How calling `method` with a revoked Proxy ends: a synchronous throw, or a promise that rejects, and with what. */
async function outcome(method: (params: unknown) => unknown): Promise<{ how: string; error: string }> {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  let result: unknown;
  try {
    result = method(proxy);
  } catch (err) {
    return { how: "throws", error: String(err) };
  }
  try {
    await result;
    return { how: "resolves", error: "" };
  } catch (err) {
    return { how: "rejects", error: String(err) };
  }
}

const openai = setupOpenAIServer();
const anthropic = setupAnthropicServer();
const gemini = setupGeminiServer();

describe("a revoked Proxy as parameters: the wrapped client fails as the unwrapped one", async () => {
  const double = await TracingDouble.start();
  const tracing = init({ baseUrl: double.url, project: "acme/demo", env: {} });
  const cases: [string, () => [(p: unknown) => unknown, (p: unknown) => unknown]][] = [
    ...VERSIONS.map((v): [string, () => [(p: unknown) => unknown, (p: unknown) => unknown]] => [
      `${v.name} chat.completions.create`,
      () => {
        const plain = makeClient(v, openai.server);
        const wrapped = wrapOpenAI(makeClient(v, openai.server));
        return [(p) => plain.chat.completions.create(p as never), (p) => wrapped.chat.completions.create(p as never)];
      },
    ]),
    ...ANTHROPIC_VERSIONS.flatMap((v): [string, () => [(p: unknown) => unknown, (p: unknown) => unknown]][] => [
      [
        `${v.name} messages.create`,
        () => {
          const plain = makeAnthropic(v, anthropic.server);
          const wrapped = wrapAnthropic(makeAnthropic(v, anthropic.server));
          return [(p) => plain.messages.create(p as never), (p) => wrapped.messages.create(p as never)];
        },
      ],
      [
        `${v.name} messages.stream`,
        () => {
          const plain = makeAnthropic(v, anthropic.server);
          const wrapped = wrapAnthropic(makeAnthropic(v, anthropic.server));
          return [(p) => plain.messages.stream(p as never), (p) => wrapped.messages.stream(p as never)];
        },
      ],
    ]),
  ];
  if (HAS_GOOGLE) {
    cases.push(
      [
        "@google/genai models.generateContent",
        () => {
          const plain = makeGoogle(gemini.server);
          const wrapped = wrapGoogleGenAI(makeGoogle(gemini.server));
          return [(p) => plain.models.generateContent(p as never), (p) => wrapped.models.generateContent(p as never)];
        },
      ],
      [
        "@google/genai models.generateContentStream",
        () => {
          const plain = makeGoogle(gemini.server);
          const wrapped = wrapGoogleGenAI(makeGoogle(gemini.server));
          return [
            (p) => plain.models.generateContentStream(p as never),
            (p) => wrapped.models.generateContentStream(p as never),
          ];
        },
      ],
    );
  }
  for (const [name, make] of cases) {
    it(name, async () => {
      const [plain, wrapped] = make();
      expect(await outcome(wrapped)).toEqual(await outcome(plain));
    });
  }
  it("nothing was recorded, and tracewire counted no failure of its own", async () => {
    await tracing.flush();
    expect(double.calls.size).toBe(0);
    expect(tracing.stats().internalErrors).toBe(0);
    await tracing.shutdown();
    await double.close();
  });
});
