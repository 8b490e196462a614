/**
 * A wrapper's options object gets no excess-property check in JavaScript: an option the wrapper does not read is a
 * ConfigError naming it and the option it probably meant, not ignored — `wrapOpenAI(client, { captureContent: false })`
 * would otherwise record content without a word. The real SDK clients, constructed only (no request is made); the
 * frameworks' processors and Next's `withTracing` set up only.
 */
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { InferenceClient } from "../../src/api/inference/client.js";
import { tracewireTraceProcessor } from "../../src/genai/openai-agents.js";
import { wrapAnthropic } from "../../src/instrument/anthropic.js";
import { wrapGoogleGenAI } from "../../src/instrument/google.js";
import { instrumentLangChain } from "../../src/instrument/langchain.js";
import { wrapOpenAI } from "../../src/instrument/openai.js";
import { withTracing } from "../../src/next/with-tracing.js";
import { configError } from "../support/errors.js";

const URL = "http://127.0.0.1:1";

const wrappers = {
  wrapOpenAI: (options: object) =>
    wrapOpenAI(new OpenAI({ apiKey: "sk-test-0123456789", baseURL: URL }), { env: {}, ...options }),
  wrapAnthropic: (options: object) =>
    wrapAnthropic(new Anthropic({ apiKey: "sk-ant-0123456789", baseURL: URL }), { env: {}, ...options }),
  wrapGoogleGenAI: (options: object) =>
    wrapGoogleGenAI(new GoogleGenAI({ apiKey: "gemini-0123456789", httpOptions: { baseUrl: URL } }), {
      env: {},
      ...options,
    }),
};

describe("an option a wrapper does not read is a ConfigError", () => {
  for (const [name, wrap] of Object.entries(wrappers)) {
    it(`${name}: init()'s captureContent, a misspelling, a value never echoed`, () => {
      const content = configError(() => wrap({ captureContent: false }));
      expect(content.setting).toBe(`${name} options.captureContent`);
      expect(content.message).toMatch(/did you mean init\(\{ captureContent \}\): content capture is set for every/);
      const slip = configError(() => wrap({ contentattributes: true }));
      expect(slip.message).toMatch(/did you mean contentAttributes\?/);
      const secret = configError(() => wrap({ apiKey: "sk-live-abcdefghijklmnop" }));
      expect(secret.message).toMatch(/\(got string\)/);
      expect(String(secret) + JSON.stringify(secret)).not.toContain("abcdefghijklmnop");
      // Known options, and an unknown one set to undefined, still wrap.
      expect(() => wrap({ contentAttributes: true, providerName: "x", sampleRate: undefined })).not.toThrow();
    });
  }

  it("wrapAnthropic and wrapGoogleGenAI: the OpenAI-only options are not theirs", () => {
    expect(configError(() => wrappers.wrapAnthropic({ includeStreamUsage: false })).message).toMatch(
      /expected a known option \(providerName, contentAttributes, env\)/,
    );
    expect(configError(() => wrappers.wrapGoogleGenAI({ captureTokenIds: true })).setting).toBe(
      "wrapGoogleGenAI options.captureTokenIds",
    );
    expect(() => wrappers.wrapOpenAI({ includeStreamUsage: false, captureTokenIds: true })).not.toThrow();
  });

  it("tracewire's own clients: the trace option", () => {
    const error = configError(
      () => new InferenceClient({ baseUrl: URL, apiKey: "k", env: {}, trace: { streamUsage: false } as object }),
    );
    expect(error.message).toMatch(/did you mean includeStreamUsage\?/);
  });
});

describe("the frameworks' and Next's set-up options are checked the same way", () => {
  it("withTracing: a misspelt option, a name that is not a string, attributes that are not an object", () => {
    const handler = async () => new Response("ok");
    const slip = configError(() => withTracing(handler, { atributes: { team: "a" } } as object));
    expect(slip.setting).toBe("withTracing option atributes");
    expect(slip.message).toMatch(/expected attributes, or one of name, route, attributes/);
    expect(configError(() => withTracing(handler, { name: 42 } as object)).setting).toBe("withTracing option name");
    expect(configError(() => withTracing(handler, { attributes: [1] } as object)).setting).toBe(
      "withTracing option attributes",
    );
    expect(configError(() => withTracing(handler, null as unknown as object)).setting).toBe("withTracing options");
    expect(typeof withTracing(handler, { name: "chat", route: "/api/chat", attributes: { team: "a" } })).toBe(
      "function",
    );
  });

  it("tracewireTraceProcessor and instrumentLangChain: a misspelt option, never its value", () => {
    const runs = configError(() => tracewireTraceProcessor({ maxRun: 5 } as object));
    expect(runs.setting).toBe("tracewireTraceProcessor option maxRun");
    expect(runs.message).toMatch(/expected maxRuns, its only option/);
    expect(() => tracewireTraceProcessor({ maxRuns: 5 })).not.toThrow();
    const error = configError(() => instrumentLangChain({ modles: [], apiKey: "sk-live-abcdefghijklmnop" } as object));
    expect(error.setting).toBe("instrumentLangChain option modles");
    expect(String(error)).not.toContain("abcdefghijklmnop");
  });
});
