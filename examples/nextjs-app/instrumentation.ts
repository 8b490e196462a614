// Next calls register() once per server instance, in every runtime, before the first request.
// Two setups, picked by TRACEWIRE_NEXT_SETUP:
// - (default) tracewire alone: `register()` from tracewire/next runs init() on Node.js and skips edge;
// - "vercel-otel": @vercel/otel owns the tracer provider and tracewire is one of its span processors.
export async function register() {
  if (process.env.TRACEWIRE_NEXT_SETUP === "vercel-otel") {
    if (process.env.NEXT_RUNTIME === "nodejs") {
      const { registerOTel } = await import("@vercel/otel");
      const { TracewireSpanProcessor } = await import("tracewire/otel");
      registerOTel({ serviceName: "nextjs-app", spanProcessors: ["auto", new TracewireSpanProcessor()] });
    }
    return;
  }
  const tracewire = await import("tracewire/next");
  await tracewire.register();
}
