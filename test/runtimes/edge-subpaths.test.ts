/**
 * Every public subpath, bundled from the sources as the `edge-light` build is (tsup.config.ts's runtime variants,
 * browser platform, Next's edge conditions), evaluates in Vercel's edge runtime set up like Next's sandbox — no
 * Node built-in imported at module scope, no global `Buffer` or `process` read there — and bundles for Workers
 * without a warning. In the sandbox, `tracewire/next` runs an edge route as Next would (#22): `register()` says once
 * that edge is not traced and `withTracing(handler)` answers with the handler's own response; and `tracewire`'s
 * `init()` + `op()` + `flush()` deliver to the local service through `fetch`, where `process.on` throws and timers
 * are numbers. The full matrix (workerd, Bun, Deno, the built package) is test/runtimes/runtimes.test.ts.
 */
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appPackages, publicEntries } from "../../scripts/public-entries.mjs";
// @ts-expect-error: a plain .mjs build script without types.
import { runtimeVariants } from "../../scripts/runtime-variants.mjs";
import { TracingClient } from "../../src/api/index.js";
import { startService, type TestService } from "../server/helpers.js";
import { collect } from "../support/collect.js";
import { bundle, edgeSandbox, ROOT } from "./harness.js";

// Every subpath built for Workers and the edge (package.json's `workerd` conditions, via scripts/public-entries.mjs);
// the Node-only ones (tracewire/eval, tracewire/langchain: files and @langchain/core through Node's module loader)
// have no such build.
const SUBPATHS = Object.fromEntries(
  publicEntries()
    .filter((e) => e.web)
    .map((e) => [e.specifier, relative(ROOT, e.source)]),
);
// The optional peers are the app's own (never imported by evaluating a subpath).
const PEERS = appPackages();

/** The subpath's source as one edge script that leaves its exports on `globalThis.exported`. */
async function edgeScript(source: string, platform: "edge" | "workerd" = "edge") {
  const suffixes = platform === "workerd" ? ["workerd", "edge"] : ["edge"];
  const result = await bundle(join(ROOT, source), platform, {
    plugins: [runtimeVariants(suffixes)],
    external: PEERS,
  });
  // The ESM export clause becomes an assignment, so a classic script can hand the exports over.
  const code = result.code.replace(/^export\s*\{([^}]*)\};?\s*$/m, (_, names: string) => {
    const pairs = names.split(",").map((n) => n.trim().split(/\s+as\s+/));
    return `globalThis.exported = { ${pairs.map(([local, as]) => `${JSON.stringify(as ?? local)}: ${local}`).join(", ")} };`;
  });
  return { ...result, code };
}

describe("every subpath in an edge sandbox like Next's", () => {
  it.each(Object.entries(SUBPATHS))(
    "%s bundles for edge and Workers without warnings and evaluates",
    async (_, src) => {
      const edge = await edgeScript(src);
      expect(edge.warnings).toEqual([]);
      expect(edge.code).not.toMatch(/^import\s/m); // nothing left for the runtime to import at load
      const runtime = edgeSandbox(edge.code, {});
      expect(Object.keys(runtime.evaluate("globalThis.exported")).length).toBeGreaterThan(0);
      const workerd = await edgeScript(src, "workerd");
      expect(workerd.warnings).toEqual([]);
    },
  );
});

describe("tracewire/next in an edge route, as Next runs it", () => {
  it("register() says once that edge is not traced; withTracing answers with the handler's own response", async () => {
    const { code } = await edgeScript("src/next/index.ts");
    const runtime = edgeSandbox(code, { NEXT_RUNTIME: "edge" });
    const result = await runtime.evaluate(`(async () => {
      const warnings = [];
      const warn = console.warn;
      console.warn = (m) => warnings.push(String(m));
      try {
        const { register, withTracing } = globalThis.exported;
        const first = await register();
        await register();
        const GET = withTracing(async (request) => Response.json({ runtime: "edge", path: new URL(request.url).pathname }));
        const response = await GET(new Request("http://localhost/api/edge"));
        return { first: first === undefined ? "undefined" : typeof first, status: response.status, body: await response.json(), warnings };
      } finally {
        console.warn = warn;
      }
    })()`);
    expect(result).toEqual({
      first: "undefined",
      status: 200,
      body: { runtime: "edge", path: "/api/edge" },
      warnings: [
        "[tracewire] The edge runtime is not traced by tracewire (Node.js runtime only); edge code runs as is.",
      ],
    });
  });
});

describe("tracing in the edge sandbox: init, op, flush through fetch", () => {
  let service: TestService;
  let client: TracingClient;
  beforeAll(async () => {
    service = await startService({ storage: "memory" });
    client = new TracingClient({ baseUrl: service.url, project: "acme/edge", env: {} });
  });
  afterAll(async () => {
    await client?.close();
    await service?.close();
  });

  it("nested ops arrive with the right parents; process.on throwing and numeric timers cost nothing", async () => {
    const { code } = await edgeScript("src/index.ts");
    const runtime = edgeSandbox(code, { TRACEWIRE_BASE_URL: service.url, TRACEWIRE_PROJECT: "acme/edge" });
    const stats = await runtime.evaluate(`(async () => {
      const { init, op } = globalThis.exported;
      const tracing = init({ scheduledDelayMillis: 60000 });
      const inner = op(async function inner(x) { return x + 1; });
      const outer = op(async function outer(x) { return (await inner(x)) * 2; });
      const results = await Promise.all([outer(1), outer(10)]);
      await tracing.flush();
      return { results, stats: tracing.stats() };
    })()`);
    expect(stats).toMatchObject({ results: [4, 22], stats: { calls: { sent: 8, dropped: 0 }, internalErrors: 0 } });
    const calls = await collect(client.calls.streamQuery({}));
    const outers = calls.filter((c) => c.op_name === "outer");
    expect(outers).toHaveLength(2);
    for (const outer of outers) {
      const inner = calls.filter((c) => c.op_name === "inner" && c.parent_id === outer.id);
      expect(inner).toHaveLength(1);
      expect((inner[0]!.output as number) * 2).toBe(outer.output);
      expect(inner[0]!.trace_id).toBe(outer.trace_id);
    }
  });
});
