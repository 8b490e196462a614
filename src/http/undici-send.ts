/**
 * Sending through undici's `Pool` (Node): keep-alive sockets per origin, connect/headers/body timeouts. undici is
 * loaded by the first request rather than when tracewire is imported: it is most of tracewire's cold import time
 * (bench/RESULTS.md), and an app that never sends (tracing off, a CLI that exits first) never pays for it. The deep
 * paths (see src/types/undici-pool.d.ts) keep undici from taking over the app's global `fetch` dispatcher.
 *
 * The builds for Workers and the edge (tsup.config.ts) replace this module with undici-send.edge.ts, so their bundles
 * neither carry undici nor try to run it.
 */
import type { Pool } from "undici";
import { flattenHeaders } from "./request-parts.js";
import type { Sender, SenderOptions } from "./sender.js";

type UndiciRequest = typeof import("undici/lib/api/api-request.js").default;
type PoolConstructor = typeof import("undici/lib/dispatcher/pool.js").default;
let undici: Promise<{ Pool: PoolConstructor; request: UndiciRequest }> | undefined;

function loadUndici(): Promise<{ Pool: PoolConstructor; request: UndiciRequest }> {
  undici ??= Promise.all([import("undici/lib/dispatcher/pool.js"), import("undici/lib/api/api-request.js")]).then(
    ([pool, api]) => ({ Pool: pool.default, request: api.default }),
  );
  return undici;
}

/** A sender over one undici pool, created by the first request. */
export function createUndiciSender(options: SenderOptions): Sender | undefined {
  let connection: Promise<{ pool: Pool; request: UndiciRequest }> | undefined;
  let closed = false;
  const connect = () => {
    connection ??= loadUndici().then(async ({ Pool: PoolClass, request }) => {
      const pool = new PoolClass(options.origin, {
        connections: options.maxConnections,
        connect: { timeout: options.connectTimeoutMs },
        headersTimeout: options.headersTimeoutMs,
        bodyTimeout: options.bodyTimeoutMs,
        keepAliveTimeout: 4_000,
      });
      // Closed before its first request: requests fail as on any closed pool.
      if (closed) await pool.close();
      return { pool, request };
    });
    return connection;
  };
  return {
    async send(req) {
      const { pool, request } = await connect();
      const res = await request.call(pool, {
        path: req.path,
        method: req.method as "GET",
        headers: req.headers,
        body: req.body,
        signal: req.signal,
        headersTimeout: req.headersTimeoutMs,
        bodyTimeout: req.bodyTimeoutMs,
      });
      return { status: res.statusCode, headers: flattenHeaders(res.headers), body: res.body };
    },
    async close() {
      closed = true;
      if (connection) await (await connection).pool.close();
    },
  };
}
