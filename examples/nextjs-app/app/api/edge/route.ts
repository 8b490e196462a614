// An edge route: tracewire/next must bundle for edge; tracing is off there and the handler runs as is.
import { withTracing } from "tracewire/next";

export const runtime = "edge";
export const dynamic = "force-dynamic";

export const GET = withTracing(async () => Response.json({ runtime: "edge", ok: true }));
