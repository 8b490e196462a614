/** The shape of one way of sending HTTP requests (undici-send.ts, fetch-send.ts); send.ts picks one. */

/** One attempt, as the transport asks for it. */
export interface SendRequest {
  /** Path and query below the origin. */
  path: string;
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | string | undefined;
  signal: AbortSignal;
  /** Longest wait for the response headers, ms. */
  headersTimeoutMs: number;
  /** Longest silence while the body streams, ms. */
  bodyTimeoutMs: number;
}

/** The answer to one attempt, whatever its status; the body is still to be read (or destroyed). */
export interface SendResponse {
  status: number;
  headers: Record<string, string>;
  body: AsyncIterable<Uint8Array> & { destroy?: (err?: Error) => void };
}

/** What the transport needs from a way of sending. */
export interface Sender {
  send(request: SendRequest): Promise<SendResponse>;
  /** Lets in-flight requests finish and closes idle connections; later sends fail. */
  close(): Promise<void>;
}

/** Settings of a sender (one origin). */
export interface SenderOptions {
  origin: string;
  maxConnections: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
}
