/**
 * docs/nextjs.md, step 1: the `@vercel/otel` setup runs as the page shows it (its own file: it registers the global
 * tracer provider), its `await import("tracewire/otel")` from src/ as the runner loads tracewire: an op's call
 * reaches the service through that processor. On the edge runtime the block does nothing.
 */
import { trace } from "@opentelemetry/api";
import { afterAll, beforeAll, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { globalState } from "../../src/otel/state.js";
import { TracingDouble } from "../support/tracing-double.js";
import { docBlock, runBlock, withEnv } from "./snippets.js";

let double: TracingDouble;

beforeAll(async () => {
  double = await TracingDouble.start();
});
afterAll(async () => {
  // The processor registerOTel was given (a TracewireSpanProcessor): stopped so that nothing outlives the file.
  await (globalState().active as unknown as { shutdown(): Promise<void> } | undefined)?.shutdown();
  await double.close();
});

it("registerOTel with TracewireSpanProcessor: tracewire's calls reach the service; nothing on the edge", async () => {
  const block = docBlock("docs/nextjs.md", "# Next.js (`tracewire/next`)", 2);
  const env = { TRACEWIRE_BASE_URL: double.url, TRACEWIRE_PROJECT: "acme/demo", TRACEWIRE_API_KEY: undefined };
  await withEnv({ ...env, NEXT_RUNTIME: "edge" }, async () => {
    const { register } = (await runBlock(block)) as { register: () => Promise<void> };
    await register();
  });
  expect(globalState().active).toBeUndefined();

  await withEnv({ ...env, NEXT_RUNTIME: "nodejs" }, async () => {
    const { register } = (await runBlock(block)) as { register: () => Promise<void> };
    await register();
  });
  expect(globalState().active).toBeDefined();
  expect(trace.getTracerProvider().constructor.name).not.toBe("NoopTracerProvider");
  const greet = op(async function greet(name: string) {
    return `hi ${name}`;
  });
  await greet("ada");
  await globalState().active!.forceFlush();
  expect(double.callsNamed("greet").map((c) => [c.start?.inputs, c.end?.output])).toEqual([
    [{ arg0: "ada" }, "hi ada"],
  ]);
});
