import { DEFAULT_RETRY } from "../../src/http/retry.js";
import { HttpTransport } from "../../src/http/transport.js";

/** A transport on `baseUrl` with the default retry policy, 5 s deadlines (1 s to connect), no gzip, one connection. */
export function plainTransport(baseUrl: string): HttpTransport {
  return new HttpTransport({
    baseUrl,
    retry: DEFAULT_RETRY,
    timeoutMs: 5000,
    connectTimeoutMs: 1000,
    bodyTimeoutMs: 5000,
    gzip: false,
    maxConnections: 1,
  });
}
