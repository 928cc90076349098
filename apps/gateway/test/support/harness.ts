/**
 * Runs a real gateway (own PGlite data dir or PostgreSQL schema, real ports)
 * in front of an upstream double whose behaviour a test chooses, and issues
 * credentials through the real admin API.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMITTED_OPERATIONS_PATH, ASSERTION_KEY_IDS_PATH, assertionKeyFiles, ensureAssertionKeys, HEALTH_PATH, type CredentialKind, type Logger } from '@gateway-minds/service-kit';
import { loadConfig, startGateway, type Gateway, type GatewayConfig } from '../../src/index.js';

export interface UpstreamCall {
  /** The gateway's side of the connection: the same port means a kept-alive connection. */
  remotePort: number | undefined;
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type UpstreamBehaviour = (call: UpstreamCall, res: import('node:http').ServerResponse) => void;

/** A stand-in for a service behind the gateway: records what reached it and answers as told. */
export class UpstreamDouble {
  calls: UpstreamCall[] = [];
  /** What its health route answers: 2xx keeps it in the gateway's rotation. */
  healthStatus = 200;
  behaviour: UpstreamBehaviour = (_call, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  };
  private server: Server | undefined;
  port = 0;

  async start(port = 0): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const call = { remotePort: req.socket.remotePort, method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) };
        if (call.url === HEALTH_PATH) return void res.writeHead(this.healthStatus, { 'content-type': 'application/json' }).end(JSON.stringify({ status: this.healthStatus < 300 ? 'ok' : 'unavailable' }));
        // A service that does not say what it admits: the gateway lists its ungated operations.
        if (call.url === ADMITTED_OPERATIONS_PATH) return void res.writeHead(404).end();
        // Nor which signing keys it trusts: the gateway forwards, and the double's answer decides.
        if (call.url === ASSERTION_KEY_IDS_PATH) return void res.writeHead(404).end();
        this.calls.push(call);
        this.behaviour(call, res);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server!.close(resolve));
    this.server = undefined;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
}

export interface Harness {
  gateway: Gateway;
  dataDir: string;
  config: GatewayConfig;
  issue(kind: CredentialKind, options?: Record<string, unknown>): Promise<{ id: string; token: string; organization_id: string; project_id: string | null; agent_id: string | null }>;
  admin(path: string, body: unknown): Promise<any>;
  close(): Promise<void>;
}

export async function startHarness(
  overrides: { env?: Record<string, string>; withKeys?: boolean; upstream?: UpstreamDouble; logger?: Logger } = {},
): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  const keys = assertionKeyFiles(dataDir);
  if (overrides.withKeys !== false) await ensureAssertionKeys(keys);
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    ADMIN_PORT: '0',
    MINDS_URL: overrides.upstream?.url ?? 'http://127.0.0.1:9',
    // Short, so the deadline tests wait little; long enough that a 1 MB answer is relayed in time
    // on a loaded 2-core machine.
    MINDS_TIMEOUT_MS: '2000',
    NODE_ENV: 'test',
    ...overrides.env,
  });
  const gateway = await startGateway(config, overrides.logger);
  const admin = async (path: string, body: unknown) => {
    const response = await fetch(gateway.adminUrl + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as any;
    if (!response.ok) throw new Error(`admin ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    gateway,
    dataDir,
    config,
    admin,
    issue: (kind, options = {}) => admin('/admin/credentials', { kind, ...options }),
    async close() {
      await gateway.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A raw HTTP call (node:http) so that tests can send what fetch refuses: repeated headers, bodies on GET, odd paths. */
export function send(
  base: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string | string[]>; body?: string | Buffer } = {},
): Promise<{ status: number; headers: IncomingMessage['headers']; body: any; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const { hostname, port } = new URL(base);
    // Options, not a URL string: a URL would normalise the path (dot segments), and those are test cases.
    const req = request({ host: hostname, port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, body, text });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
