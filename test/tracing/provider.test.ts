import { AlwaysOffSampler, AlwaysOnSampler, type Sampler } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { callOf, getCurrentCall, op } from "../../src/index.js";
import { startOwnProvider } from "../support/own-provider.js";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function appProvider(sampler: Sampler) {
  const { double, processor, close } = await startOwnProvider({ scheduledDelayMillis: 10, exitHooks: false }, sampler);
  cleanup = close;
  return { double, processor };
}

describe("an app-owned provider", () => {
  it("traces ops through the app's provider, nested correctly", async () => {
    const { double, processor } = await appProvider(new AlwaysOnSampler());
    const inner = op(async function appInner() {
      return getCurrentCall()?.id;
    });
    const outer = op(async function appOuter() {
      return { inner: await inner(), self: getCurrentCall()?.id };
    });
    const result = await outer();
    await processor.forceFlush();
    const [o] = double.callsNamed("appOuter");
    const [i] = double.callsNamed("appInner");
    expect(result).toEqual({ inner: i?.start?.id, self: o?.start?.id });
    expect(i?.start?.parent_id).toBe(o?.start?.id);
    expect(callOf(result)?.id).toBe(o?.start?.id);
  });

  it("sampled out: the op returns its value, no Call is handed out, nothing is sent", async () => {
    const { double, processor } = await appProvider(new AlwaysOffSampler());
    const value = { v: 1 };
    let inside: unknown = "unset";
    const f = op(function sampledOut() {
      inside = getCurrentCall();
      return value;
    });
    const [result, call] = f.invoke();
    expect(result).toBe(value);
    expect(inside).toBeUndefined();
    expect(call).toBeUndefined();
    expect(callOf(value)).toBeUndefined();
    await processor.forceFlush();
    expect(double.server.requests).toHaveLength(0);
  });
});
