/**
 * Stands in for undici-send.ts in the builds for Workers and the edge (tsup.config.ts): those runtimes send through
 * `fetch`, and their bundles must not carry undici.
 */
import type { Sender, SenderOptions } from "./sender.js";

/** No undici here: the transport uses `fetch`. */
export function createUndiciSender(_options: SenderOptions): Sender | undefined {
  return undefined;
}
