// The edge function (bundled the way Next bundles for its edge runtime: the `edge-light` export condition), run in
// Vercel's `edge-runtime` set up like Next's sandbox. Settings come from `process.env`, which the sandbox fills.
import { setup } from "./traced-app.mjs";

const { tracing, run } = setup({
  baseUrl: process.env.TRACEWIRE_BASE_URL,
  openaiUrl: process.env.OPENAI_BASE_URL,
  project: process.env.TRACEWIRE_PROJECT,
  runtime: "edge-light",
});

addEventListener("fetch", (event) => {
  event.respondWith(
    (async () => {
      const result = await run();
      await tracing.flush();
      return Response.json({ result, stats: tracing.stats() });
    })(),
  );
});
