/**
 * An HTTP proxy on 127.0.0.1 in front of a real service that can lose answers: for the next `n` requests to a path
 * it forwards the request, waits until the service has answered (so the work is done), then resets the client's
 * connection instead of passing the answer on — the "processed, but the client never heard" failure that makes a
 * client resend. It records every request body it forwarded.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";

export interface ForwardedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
  /** Whether the answer was withheld (the connection reset after the service processed it). */
  lost: boolean;
}

export class LostAnswerProxy {
  readonly requests: ForwardedRequest[] = [];
  private readonly toLose = new Map<string, number>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(target: string): Promise<LostAnswerProxy> {
    const upstream = new URL(target);
    let proxy: LostAnswerProxy | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        const path = (req.url ?? "/").split("?")[0]!;
        const left = proxy!.toLose.get(path) ?? 0;
        const lost = left > 0;
        if (lost) proxy!.toLose.set(path, left - 1);
        proxy!.requests.push({ path, headers: req.headers, body, lost });
        const out = httpRequest(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: upstream.host },
          },
          (answer) => {
            const parts: Buffer[] = [];
            answer.on("data", (c: Buffer) => parts.push(c));
            answer.on("end", () => {
              if (lost) {
                res.socket?.destroy(); // processed upstream; the client never hears it
                return;
              }
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              res.end(Buffer.concat(parts));
            });
          },
        );
        out.on("error", () => res.socket?.destroy());
        out.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    proxy = new LostAnswerProxy(server, `http://127.0.0.1:${port}`);
    return proxy;
  }

  /** Loses the answers of the next `n` requests to `path`. */
  loseAnswers(path: string, n = 1): void {
    this.toLose.set(path, (this.toLose.get(path) ?? 0) + n);
  }

  /** Bodies forwarded to `path`, in order. */
  bodies(path: string): ForwardedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
