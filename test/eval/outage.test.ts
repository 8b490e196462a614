/**
 * evaluate() against a tracing service that stops answering part-way: it takes the evaluation's objects, then
 * never answers the calls (or the score feedback). The evaluation must still settle in bounded time — within a few
 * flush deadlines (`exportTimeoutMillis`) — with its result, and say what was not recorded.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluate } from "../../src/eval/index.js";
import { init } from "../../src/index.js";
import { type DevServer, startDevServer } from "../../src/server/index.js";
import { quiet } from "./support.js";

/** A loopback proxy to `target` that reads, then never answers, requests whose path `silent` matches. */
async function silentProxy(target: string, silent: RegExp): Promise<{ url: string; server: Server; held: string[] }> {
  const upstream = new URL(target);
  const held: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (silent.test(req.url ?? "")) {
        held.push(req.url ?? "");
        return; // read, never answered: a service that hangs
      }
      const out = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on("error", () => res.socket?.destroy());
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, held };
}

let service: DevServer;
beforeAll(async () => {
  service = await startDevServer({ port: 0, storage: "memory", logger: quiet });
});
afterAll(async () => {
  await service.close();
});

/** Tracing through `url` with a one-second flush deadline; `queue` caps the calls queue. */
function tracingVia(url: string, logs: string[], queue?: number) {
  return init({
    baseUrl: url,
    project: "acme/outage",
    env: {},
    scheduledDelayMillis: 20,
    exportTimeoutMillis: 1000,
    ...(queue === undefined ? {} : { maxQueueSize: queue, maxExportBatchSize: queue }),
    logger: { warn: (m) => logs.push(m), error: (m) => logs.push(m) },
  });
}

describe("a service that stops answering", () => {
  for (const [what, silent] of [
    ["the calls", /^\/call\//],
    ["the score feedback", /^\/feedback\//],
  ] as const) {
    it(`that never answers ${what}: evaluate() settles within a few flush deadlines, with its result`, async () => {
      const proxy = await silentProxy(service.url, silent);
      const logs: string[] = [];
      const tracing = tracingVia(proxy.url, logs);
      try {
        const started = Date.now();
        const result = await evaluate({
          name: "outage",
          dataset: [{ q: "a" }, { q: "b" }],
          task: function answer(row: { q: string }) {
            return row.q;
          },
          scorers: [
            function nonEmpty({ output }) {
              return output.length > 0;
            },
          ],
          progress: false,
        });
        expect(Date.now() - started).toBeLessThan(15_000);
        expect(proxy.held.length).toBeGreaterThan(0);
        expect(result.counts.ok).toBe(2);
        expect(result.summary.nonEmpty).toEqual({ true_count: 2, true_fraction: 1 });
        expect(logs.join("\n")).toMatch(/could not be recorded|failed|not sent/i);
      } finally {
        await tracing.shutdown();
        proxy.server.closeAllConnections();
        proxy.server.close();
      }
    }, 60_000);
  }

  it("with more rows than its calls queue holds: the rows wait for the queue once, not a deadline per row", async () => {
    const proxy = await silentProxy(service.url, /^\/call\//);
    const logs: string[] = [];
    // A queue of 64 call items: pacing starts after a few rows, and the service never drains it.
    const tracing = tracingVia(proxy.url, logs, 64);
    try {
      const started = Date.now();
      const result = await evaluate({
        name: "outage-paced",
        dataset: Array.from({ length: 40 }, (_, i) => ({ q: `q${i}` })),
        task: function answer(row: { q: string }) {
          return row.q;
        },
        scorers: [
          function nonEmpty({ output }) {
            return output.length > 0;
          },
        ],
        concurrency: 1,
        progress: false,
      });
      // Before: each row past the half-full mark waited a whole flush deadline (1 s here, 30 s by default).
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(result.counts.ok).toBe(40);
      expect(result.summary.nonEmpty).toEqual({ true_count: 40, true_fraction: 1 });
      expect(logs.join("\n")).toMatch(/dropped while this evaluation ran/);
    } finally {
      await tracing.shutdown();
      proxy.server.closeAllConnections();
      proxy.server.close();
    }
  }, 120_000);
});
