/**
 * The local tracing service (`tracewire dev`'s, in memory) as a *child process* for bench/eval-overhead.mjs, so its
 * CPU is not charged to the process being measured. IPC: sends `{ port }` once listening; `{ cmd: "exit" }` stops it.
 */
import { startDevServer } from "../dist/cli.js";

const server = await startDevServer({ port: 0, storage: "memory", logger: { warn() {}, error() {} } });
process.send?.({ port: Number(new URL(server.url).port) });
process.on("message", (msg) => {
  if (msg?.cmd === "exit") server.close().then(() => process.exit(0));
});
process.on("disconnect", () => process.exit(0));
