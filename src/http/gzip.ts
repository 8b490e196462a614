/**
 * gzip for request bodies, by what the runtime has: `node:zlib` (Node, Bun, Deno, Workers with `nodejs_compat`) at
 * level 1, else the web `CompressionStream` (Workers without compat, Deno), else none — the body then goes plain,
 * which every service accepts. Nothing is loaded until the first body is compressed.
 */
import { nodeBuiltin } from "../runtime.js";

// Looked up by name: Next's edge compiler warns about any mention of the identifier (its runtime lacks it), although
// this only feature-detects it.
const COMPRESSION_STREAM = "CompressionStream";
type CompressionStreamClass = new (format: "gzip") => TransformStream<Uint8Array, Uint8Array>;
const compressionStream = () =>
  (globalThis as unknown as Record<string, CompressionStreamClass | undefined>)[COMPRESSION_STREAM];

type Zlib = {
  gzipSync(body: Uint8Array | string, options: { level: number }): Uint8Array;
  gzip(body: Uint8Array | string, options: { level: number }, done: (err: Error | null, out: Uint8Array) => void): void;
};

/**
 * `body` gzipped, or undefined when this runtime cannot compress. `sync` compresses on the calling thread (zlib
 * only): cheaper for small bodies than a round trip through the thread pool.
 */
export async function gzipBody(body: Uint8Array | string, sync: boolean): Promise<Uint8Array | undefined> {
  // Level 1: about half the CPU of the default level for ~10% larger telemetry bodies (bench/RESULTS.md).
  const zlib = nodeBuiltin<Zlib>("node:zlib");
  if (zlib) {
    if (sync) return zlib.gzipSync(body, { level: 1 });
    return new Promise((resolve, reject) =>
      zlib.gzip(body, { level: 1 }, (err, out) => (err ? reject(err) : resolve(out))),
    );
  }
  const Compress = compressionStream();
  if (typeof Compress !== "function") return undefined;
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new Compress("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
