/**
 * The local tracing service (`tracewire dev`), for the CLI, tests and demos:
 *
 * ```ts
 * const server = await startDevServer({ port: 0, storage: "memory" });
 * init({ baseUrl: server.url, project: "me/demo" });
 * // … open server.url in a browser …
 * await server.close();
 * ```
 *
 * Internal: not exported from any `tracewire` entry point; reach it through the `tracewire dev` bin.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createHandler } from "./app.js";
import { DEFAULT_DATA_DIR, DEFAULT_PORT } from "./defaults.js";
import { parseKeep, parseMaxCalls, startRetention } from "./retention.js";
import type { Service } from "./router.js";
import { openStore } from "./store/open.js";
import type { SqliteDriverName } from "./store/sqlite-driver.js";
import type { Store } from "./store/types.js";

export { DEFAULT_DATA_DIR, DEFAULT_PORT };

export interface DevServerOptions {
  /** Port on 127.0.0.1; 0 picks a free one. Default 4319. */
  port?: number;
  /**
   * Folder for the SQLite file. Default `./.tracewire`. One it cannot create or open the database in (a file, a
   * `traces.db` that is not a database) makes `startDevServer` reject with a `ConfigError` (setting `dataDir`).
   */
  dataDir?: string;
  /** When set, every API request needs `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** `sqlite` (default; falls back to memory with a warning when no driver loads) or `memory`. */
  storage?: "sqlite" | "memory";
  /** Use only this SQLite driver (for tests). */
  sqliteDriver?: SqliteDriverName;
  /**
   * How long traces are kept: milliseconds or a duration (`7d`, `12h`, `30m`, `2w`); 0 keeps them forever.
   * Default `30d`. Older traces are deleted whole, with the feedback on their calls.
   */
  keep?: number | string;
  /** At most this many calls are kept (the oldest traces go first); 0 for no limit. Default 1,000,000. */
  maxCalls?: number;
  /** Where warnings and internal errors go. Default `console`. */
  logger?: { warn(message: string): void; error(message: string): void };
}

export interface DevServer {
  /** `http://127.0.0.1:<port>`: the library's `baseUrl`, and the viewer. */
  readonly url: string;
  readonly port: number;
  /** The storage actually in use (`memory` when SQLite was asked for but no driver loaded). */
  readonly storage: "sqlite" | "memory";
  /** Where the data lives, in words. */
  readonly description: string;
  /**
   * Applies retention now (it also runs at start and every 10 seconds): deletes traces older than `keep` and the
   * oldest beyond `maxCalls`; resolves with how many calls went.
   */
  prune(): Promise<number>;
  /** Stops accepting requests, waits for those in flight (at most `graceMs`), then closes the store. */
  close(graceMs?: number): Promise<void>;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Starts the local tracing service on 127.0.0.1. */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const logger = options.logger ?? console;
  const keepMs = parseKeep(options.keep);
  const maxCalls = parseMaxCalls(options.maxCalls);
  const store: Store = await openStore({
    storage: options.storage ?? "sqlite",
    dataDir: options.dataDir ?? DEFAULT_DATA_DIR,
    ...(options.sqliteDriver ? { sqliteDriver: options.sqliteDriver } : {}),
    warn: (m) => logger.warn(`[tracewire dev] ${m}`),
  });
  const service: Service = { store, log: (m) => logger.error(`[tracewire dev] ${m}`) };
  const server = createServer({ keepAliveTimeout: 5000 }, createHandler(service, { apiKey: options.apiKey }));
  let port: number;
  try {
    port = await listen(server, options.port ?? DEFAULT_PORT);
  } catch (err) {
    store.close();
    throw err;
  }

  const retention = startRetention(store, { keepMs, maxCalls, log: (m) => logger.warn(`[tracewire dev] ${m}`) });

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    storage: store.kind,
    description: store.description,
    prune: () => retention.prune(),
    close(graceMs = 5000) {
      closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        // Keep-alive connections go as soon as their request in flight is answered.
        const idle = setInterval(() => server.closeIdleConnections(), 25);
        server.close(() => {
          clearTimeout(force);
          clearInterval(idle);
          void retention.stop().then(() => {
            store.close();
            resolve();
          });
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
