/**
 * runtime-wait-until.ts in the build for Cloudflare Workers (the `workerd` export condition): `waitUntil` from
 * `cloudflare:workers`, which extends the current request's lifetime like the handler's `ctx.waitUntil`, so the app
 * never passes its `ctx` to tracewire. Outside a request it throws, and the caller treats the span as no request's.
 */
import { waitUntil } from "cloudflare:workers";

const keep = (promise: Promise<unknown>) => waitUntil(promise);

/** `waitUntil` of the request running now. */
export function runtimeWaitUntil(): ((promise: Promise<unknown>) => void) | undefined {
  return keep;
}
