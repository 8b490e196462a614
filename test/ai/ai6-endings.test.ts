/**
 * `ai` 6 (its own spans, mapped by the processor): where the SDK's span status misreports how a call ended, the call
 * records what the `ai` 7 integration records. An aborted `generateText` (the SDK fails its spans with the signal's
 * AbortError) ends cancelled (`abort`), no exception; a model stream that carried an error event after HTTP 200 (no
 * status of its own, finish reason `error`) ends failed. Both used to read the other way round.
 */
import { generateText as generateText6, streamText as streamText6 } from "ai6";
import { createOpenAICompatible } from "ai6-openai-compatible";
import { describe, expect, it } from "vitest";
import { summaryOf } from "../instrument/support.js";
import { named, recorded, setupAiStandIn, standinProvider } from "./support.js";

const { ctx, session } = setupAiStandIn();

const provider = () => createOpenAICompatible(standinProvider(ctx));

describe("ai 6: aborts and errors inside a stream", () => {
  it("an aborted generateText: its operation and model call end once each, as cancelled (abort)", async () => {
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    const run = generateText6({
      model: provider()("m-hang"),
      prompt: "hi",
      maxRetries: 0,
      abortSignal: abort.signal,
      experimental_telemetry: { isEnabled: true },
    });
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    await session.tracing.flush();
    const calls = recorded(session.double);
    expect(calls.map((c) => c.start.op_name).sort()).toEqual(["ai.generateText", "ai.generateText.doGenerate"]);
    for (const call of calls) {
      expect(summaryOf(call).tracewire, String(call.start.op_name)).toEqual({
        status: "cancelled",
        cancel_reason: "abort",
      });
      expect(call.end.exception ?? null, String(call.start.op_name)).toBeNull();
    }
  });

  it("a streamText whose stream carries an error event: the model call ends failed, the text streamed unchanged", async () => {
    const result = streamText6({
      model: provider()("m-error-stream"),
      prompt: "hi",
      maxRetries: 0,
      onError: () => {},
      experimental_telemetry: { isEnabled: true },
    });
    let text = "";
    for await (const piece of result.textStream) text += piece;
    expect(text).toBe("Hello");
    await expect
      .poll(() => session.tracing.flush().then(() => session.double.callsNamed("ai.streamText").length))
      .toBe(1);
    const [model] = named(recorded(session.double), "ai.streamText.doStream");
    expect(model!.end.exception).toMatch(/finish reason: error/);
    expect(model!.end.output).toMatchObject({ finishReason: "error" });
  });
});
