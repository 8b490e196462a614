/**
 * A TCP gate in front of a loopback server: while open it pipes every connection to the target; `close()` stops
 * listening and cuts the connections in flight, so the port refuses connections (ECONNREFUSED) exactly as a service
 * that is down does; `open()` listens on the same port again. Nothing above TCP is touched.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";

export class TcpGate {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** Connections accepted (and piped to the target) so far. */
  connections = 0;

  private constructor(
    private readonly targetPort: number,
    readonly port: number,
  ) {}

  /** Opens a gate on an ephemeral 127.0.0.1 port in front of `targetPort`. */
  static async start(targetPort: number): Promise<TcpGate> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const gate = new TcpGate(targetPort, port);
    await gate.open();
    return gate;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get isOpen(): boolean {
    return this.server !== undefined;
  }

  /** Starts (again) accepting connections on {@link port}. */
  async open(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      this.connections++;
      const upstream = createConnection({ host: "127.0.0.1", port: this.targetPort });
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", resolve);
    });
    this.server = server;
  }

  /** Stops listening and cuts every open connection: from now on the port refuses connections. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}
