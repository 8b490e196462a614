/**
 * Call attributes that used to go wrong, through the local service on both routes: keys that conflict once split on
 * dots (`release` and `release.channel`) were refused by the service in portable mode (the call counted as sent,
 * then gone), and an attributes object that throws on every access became one attribute per character of its
 * placeholder.
 */
import { afterEach, describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { callOf, init, op, type TracewireHandle, withAttributes } from "../../src/index.js";
import { collect, PROJECT, startService, type TestService } from "../server/helpers.js";
import { throwingProxy } from "../support/hostile.js";

let service: TestService | undefined;
let tracing: TracewireHandle | undefined;
let client: TracingClient | undefined;

afterEach(async () => {
  await tracing?.shutdown();
  await client?.close();
  await service?.close();
  tracing = client = service = undefined;
});

const step = op(async function step() {
  return { ok: true };
});

/** Runs `fn` traced against a fresh local service on `route`; returns the stored attributes of its call. */
async function storedAttributes(route: "auto" | "otlp", fn: () => Promise<unknown>): Promise<unknown> {
  service = await startService({ storage: "memory" });
  tracing = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 10, export: route });
  const call = callOf(await fn())!;
  await tracing.flush();
  expect(tracing.stats()).toMatchObject({
    calls: { dropped: 0, rejected: 0, queued: 0 },
    otlp: { dropped: 0, rejected: 0, queued: 0 },
  });
  client = new TracingClient({ baseUrl: service.url, project: PROJECT, env: {} });
  const calls = await collect(client.calls.streamQuery({ filter: { call_ids: [call.id] } }));
  expect(calls).toHaveLength(1);
  return calls[0]!.attributes;
}

describe.each(["auto", "otlp"] as const)("route %s", (route) => {
  it("keys that conflict on dots (release, release.channel) arrive as given", async () => {
    const given = { release: "2026.11", "release.channel": "beta", tier: { name: "gold" } };
    const attributes = await storedAttributes(route, () => withAttributes(given, () => step()));
    expect(attributes).toMatchObject(given);
  });

  it("an attributes object that throws on every access is one placeholder, not one key per character", async () => {
    const attributes = (await storedAttributes(route, () =>
      withAttributes({ tenant: "t1" }, () => withAttributes(throwingProxy("nope") as never, () => step())),
    )) as Record<string, unknown>;
    expect(attributes.tenant).toBe("t1");
    expect(attributes["…"]).toMatch(/Unserializable: nope/);
    expect(Object.keys(attributes).filter((k) => /^\d+$/.test(k))).toEqual([]);
  });

  it("the same for an op's own attributes option", async () => {
    const hostile = op(
      async function hostile() {
        return { ok: true };
      },
      { attributes: throwingProxy("nope") as never },
    );
    const attributes = (await storedAttributes(route, () => hostile())) as Record<string, unknown>;
    expect(Object.keys(attributes)).toEqual(["…"]);
    expect(attributes["…"]).toMatch(/Unserializable: nope/);
  });
});
