/**
 * `ai` 6 records a failed model call on its own spans (exception event, status), which tracewire turns into calls.
 * When the model's server quotes the refused key, the key must not travel with them: `init()` registers the values of
 * credential-named variables of its environment (here `OPENAI_API_KEY`, which the provider was built from) as known
 * secrets, and the processor's exit check masks them in every exception text and status message.
 */
import { generateText } from "ai6";
import { createOpenAICompatible } from "ai6-openai-compatible";
import { describe, expect, it } from "vitest";
import { REDACTED } from "../../src/index.js";
import { freshKey, refusal, setupKeyEcho } from "../support/key-echo-server.js";
import { named, recorded } from "./support.js";

const echo = setupKeyEcho();

describe("ai 6: a model error that quotes the API key", () => {
  it.each(["calls", "otlp"] as const)("%s route: recorded with the key masked", async (route) => {
    const key = freshKey();
    const session = await echo.start({ env: { OPENAI_API_KEY: key }, ...(route === "otlp" ? { export: "otlp" } : {}) });
    const provider = createOpenAICompatible({ name: "standin", baseURL: `${echo.url}/v1`, apiKey: key });
    await expect(
      generateText({
        model: provider("gpt-4o-mini"),
        prompt: "hi",
        maxRetries: 0,
        experimental_telemetry: { isEnabled: true, functionId: "refused" },
      }),
    ).rejects.toThrow();
    await session.tracing.flush();
    if (route === "calls") {
      const [operation] = named(recorded(session.double), "refused");
      expect(String(operation?.end.exception)).toContain(refusal(REDACTED));
    } else {
      const texts = session.double.spans.flatMap((s) => [
        s.status.message,
        ...s.events.map((e) => String(e.attributes["exception.message"])),
      ]);
      expect(texts.join("\n")).toContain(refusal(REDACTED));
    }
    expect(session.double.wireText()).not.toContain(key);
    expect(session.logs.map((l) => l.message).join("\n")).not.toContain(key);
  });
});
