/**
 * A TCP proxy in front of a real server (Redis, PostgreSQL) that a test can make stall (connections stay
 * open and nothing more is forwarded either way) or refuse (nothing listens on its port), then
 * forward again on the same port.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export class TcpProxy {
  port = 0;
  private server: Server | undefined;
  private stalled = false;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();

  constructor(
    private readonly target: { host: string; port: number },
  ) {}


  /** Listens (on the same port as before, if it listened before) and forwards everything. */
  async forward(): Promise<void> {
    const wasStalled = this.stalled;
    this.stalled = false;
    if (wasStalled) for (const pair of this.pairs) this.connect(pair);
    if (this.server) return;
    this.server = createServer((client) => {
      const upstream = createConnection(this.target);
      const pair = { client, upstream };
      this.pairs.add(pair);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.pairs.delete(pair);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      if (!this.stalled) this.connect(pair);
    });
    await new Promise<void>((resolve, reject) => this.server!.once('error', reject).listen(this.port, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Keeps every connection open, accepts new ones, and forwards nothing: a server that hangs. */
  stall(): void {
    this.stalled = true;
    for (const { client, upstream } of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  /** Closes every connection and stops listening: connections are refused. */
  async refuse(): Promise<void> {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  private connect({ client, upstream }: { client: Socket; upstream: Socket }): void {
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
    upstream.resume();
  }
}
