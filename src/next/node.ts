/**
 * The Node.js half of `register()`, loaded with `import()` only when `NEXT_RUNTIME === "nodejs"`, so an edge
 * bundle of `tracewire/next` never pulls in the exporter's Node-only modules (undici, node:http, zlib).
 */
export { init } from "../tracing/init.js";
