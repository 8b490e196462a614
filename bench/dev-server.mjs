/**
 * The child side of bench/dev-store.mjs: the built local service (`dist/cli.js`, SQLite, retention off) on a
 * loopback port in its own process, so the benchmark measures its CPU apart from the client's. Sends `{ url }`;
 * stops on `{ cmd: "exit" }` or when the parent goes away.
 */
import { startDevServer } from "../dist/cli.js";

const dataDir = process.argv[2];
const server = await startDevServer({
  port: 0,
  dataDir,
  storage: "sqlite",
  keep: 0,
  maxCalls: 0,
  logger: { warn: (m) => console.error(m), error: (m) => console.error(m) },
});
process.send?.({ url: server.url, description: server.description });
process.on("message", (msg) => {
  if (msg?.cmd === "exit") void server.close().then(() => process.exit(0));
});
process.on("disconnect", () => void server.close().then(() => process.exit(0)));
