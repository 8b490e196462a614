// Bun and Deno run this file as it is, with tracewire resolved through its package exports. The settings come as one
// JSON argument (Deno runs it without env access). Prints the app's answer as one JSON line.
import { setup } from "./traced-app.mjs";

const args = globalThis.Deno ? globalThis.Deno.args : process.argv.slice(2);
const config = JSON.parse(args[0]);
const { tracing, run } = setup(config);
const result = await run();
await tracing.flush();
console.log(JSON.stringify({ result, stats: tracing.stats() }));
await tracing.shutdown();
