// The Cloudflare Worker (bundled the way wrangler bundles: the `workerd` export condition). Tracing is set up at
// module scope from the worker's bindings; the handler never flushes and never passes `ctx` on: the request's calls
// leave through `cloudflare:workers`' `waitUntil`.
import { env } from "cloudflare:workers";
import { setup } from "./traced-app.mjs";

const { tracing, run } = setup({
  baseUrl: env.TRACEWIRE_BASE_URL,
  openaiUrl: env.OPENAI_BASE_URL,
  project: env.TRACEWIRE_PROJECT,
  runtime: "workerd",
});

export default {
  async fetch() {
    const result = await run();
    return Response.json({ result, stats: tracing.stats() });
  },
};
