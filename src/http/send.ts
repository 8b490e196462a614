/**
 * How one HTTP attempt leaves the process, chosen once per transport: undici's connection pool on Node (keep-alive,
 * connect/headers/body timeouts, loaded by the first request), the runtime's own `fetch` everywhere else — Workers,
 * Vercel's edge, Deno and Bun, where undici cannot run (no WebAssembly code generation, no sockets) or is only a shim
 * over `fetch`. The one place that decides; src/http/transport.ts only sees a {@link Sender}.
 */
import { runtimeName } from "../runtime.js";
import { createFetchSender } from "./fetch-send.js";
import type { Sender, SenderOptions } from "./sender.js";
import { createUndiciSender } from "./undici-send.js";

export type { Sender, SenderOptions, SendRequest, SendResponse } from "./sender.js";

/** undici's pool on Node, else `fetch` (see the module comment). */
export function createSender(options: SenderOptions): Sender {
  if (runtimeName() === "node") {
    const undici = createUndiciSender(options);
    if (undici) return undici;
  }
  return createFetchSender(options);
}
