/**
 * The runtime's own `waitUntil` for the request running now, where the runtime has one that needs no handle from the
 * app. None on Node, Bun, Deno and the edge (there the platform's request context is read: request-flush.ts); the
 * build for Cloudflare Workers replaces this module with runtime-wait-until.workerd.ts.
 */

/** None in this build. */
export function runtimeWaitUntil(): ((promise: Promise<unknown>) => void) | undefined {
  return undefined;
}
