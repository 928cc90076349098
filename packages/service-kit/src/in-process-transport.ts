/**
 * A service in the same process as the gateway, reached without the kernel's loopback.
 *
 * Each connection the gateway's undici pool opens is a pair of in-memory streams: the pool writes
 * HTTP/1.1 into one end (undici's `connect` option takes a function that returns the socket), and
 * the service's own `http.Server` reads the other end as a new connection (its 'connection'
 * event). Both sides keep everything they do over TCP — undici's and Node's HTTP parsers, the
 * listener's limits and deadlines, its refusals in the envelope, keep-alive, the pool's
 * `maxResponseSize` — so the gateway forwards, signs its assertion and checks the answer exactly as
 * it does to a service in another process. Only the socket is different: no system calls, no
 * loopback writes, which on a small virtual machine cost a quarter of each service's CPU.
 *
 * Node 20 has no `stream.duplexPair` (added in 22.6), hence the small pair below.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import type { buildConnector } from 'undici';

/** One end of an in-memory connection; what it writes, its peer reads. */
class MemorySocket extends Duplex {
  peer!: MemorySocket;
  /** A write held until the peer's reader asks for more (backpressure, as a socket's buffer). */
  private heldWrite: (() => void) | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  // What Node's HTTP server and undici read off a socket.
  readonly remoteAddress = '127.0.0.1';
  readonly remoteFamily = 'IPv4';
  readonly localAddress = '127.0.0.1';
  readonly remotePort: number;
  readonly localPort: number;
  readonly encrypted = false;
  timeout = 0;

  constructor(remotePort: number, localPort: number) {
    super({ allowHalfOpen: true });
    this.remotePort = remotePort;
    this.localPort = localPort;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.idleTimer?.refresh();
    if (this.peer.destroyed) return done(Object.assign(new Error('The other end of the in-process connection is closed.'), { code: 'EPIPE' }));
    if (this.peer.push(chunk)) done();
    else this.peer.heldWrite = () => done();
  }

  override _read(): void {
    this.idleTimer?.refresh();
    const held = this.heldWrite;
    this.heldWrite = undefined;
    held?.();
  }

  override _final(done: (error?: Error | null) => void): void {
    // Half-close: the peer reads an end, as after a FIN.
    if (!this.peer.destroyed) this.peer.push(null);
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    clearTimeout(this.idleTimer);
    const held = this.heldWrite;
    this.heldWrite = undefined;
    held?.();
    // The peer sees the connection go, as after a reset: undici reports UND_ERR_SOCKET, Node's server drops the request.
    if (!this.peer.destroyed) {
      this.peer.push(null);
      this.peer.destroy();
    }
    done(error);
  }

  /** net.Socket's idle timeout: 'timeout' after `ms` without reads or writes (Node's server sets its keep-alive timeout this way). */
  setTimeout(ms: number, onTimeout?: () => void): this {
    if (onTimeout) this.once('timeout', onTimeout);
    clearTimeout(this.idleTimer);
    this.timeout = ms;
    this.idleTimer = ms > 0 ? setTimeout(() => this.emit('timeout'), ms).unref() : undefined;
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }

  address(): { address: string; family: string; port: number } {
    return { address: this.localAddress, family: 'IPv4', port: this.localPort };
  }
}

let nextPort = 1;

/** Two connected ends: the client's and the server's. */
export function inMemoryConnection(): { client: Duplex; server: Duplex } {
  const port = 49152 + (nextPort++ % 16384);
  const client = new MemorySocket(0, port);
  const server = new MemorySocket(port, 0);
  client.peer = server;
  server.peer = client;
  return { client, server };
}

export type Connector = buildConnector.connector;

/**
 * A service's `http.Server` (listening or not) as an upstream in this process: `connect` is the
 * undici pool's `connect` option. The server tracks connections and read deadlines only once it
 * listens; these connections are tracked here instead, so that `close()` ends them as closing a
 * listener's connections would, and a connection asked for afterwards is refused.
 */
export class InProcessUpstream {
  private readonly open = new Set<Duplex>();
  private closed = false;

  constructor(private readonly server: Server) {}

  readonly connect: Connector = (_options, callback) => {
    // undici expects the answer after connect() returns, as a real connect gives it.
    queueMicrotask(() => {
      if (this.closed) {
        callback(Object.assign(new Error('The in-process service is closed.'), { code: 'ECONNREFUSED' }), null);
        return;
      }
      const { client, server } = inMemoryConnection();
      this.open.add(server);
      server.once('close', () => this.open.delete(server));
      this.server.emit('connection', server);
      callback(null, client as unknown as Socket);
    });
  };

  /** Refuses new connections and ends the open ones (their requests fail as over a reset connection). */
  close(): void {
    this.closed = true;
    for (const connection of this.open) connection.destroy();
    this.open.clear();
  }
}
