// The one export of Cloudflare's `cloudflare:workers` module tracewire uses (runtime-wait-until.workerd.ts). Only
// the build for the `workerd` condition imports it; workerd provides it at run time.
declare module "cloudflare:workers" {
  export function waitUntil(promise: Promise<unknown>): void;
}
