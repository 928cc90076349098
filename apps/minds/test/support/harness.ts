/**
 * The test harness plays the gateway: it holds an assertion key pair, signs
 * a VerifiedPrincipal per request and calls the running Minds service over
 * real HTTP. It also serves the gateway's internal agent lookup with a tiny
 * node:http server holding a map of test agents.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CryptoKey } from 'jose';
import { openDatabase, type Database } from '@gateway-minds/db';
import {
  ASSERTION_HEADER,
  createLogger,
  generateAssertionKeys,
  importAssertionKey,
  newPrefixedId,
  newRequestId,
  signAssertion,
  verifyAssertion,
  type AssertionKeyPair,
  type VerifiedPrincipal,
} from '@gateway-minds/service-kit';
import { createMindsService, migrationsDir, type MindsService, type MindsServiceConfig } from '../../src/index.js';

export const postgresUrl = process.env.TEST_DATABASE_URL || undefined;
export type DriverName = 'pglite' | 'postgres';
/** PGlite always; PostgreSQL as well when TEST_DATABASE_URL names a server. */
export const drivers: DriverName[] = postgresUrl ? ['pglite', 'postgres'] : ['pglite'];

const scratch: string[] = [];
const schemas: string[] = [];

/** Where a new PGlite data directory goes (opening it makes it, from the built empty cluster). */
export function freshDataDir(): string {
  const root = mkdtempSync(join(tmpdir(), 'minds-test-'));
  scratch.push(root);
  return join(root, 'pgdata');
}

/** A schema name no other test file or run uses; cleanUp() drops it. */
export function uniqueSchema(): string {
  const schema = `minds_test_${randomBytes(6).toString('hex')}`;
  schemas.push(schema);
  return schema;
}

/** Where a database lives for a driver: a fresh PGlite directory or a fresh schema on the server. */
export function databaseTarget(driver: DriverName): { databaseUrl?: string; dataDir?: string; schema: string } {
  return driver === 'postgres' ? { databaseUrl: postgresUrl, schema: uniqueSchema() } : { dataDir: freshDataDir(), schema: 'minds' };
}

export async function openTestDatabase(driver: DriverName): Promise<Database> {
  const target = databaseTarget(driver);
  return openDatabase({ url: target.databaseUrl, dataDir: target.dataDir, schema: target.schema, migrationsDir });
}

/** afterAll: drops the schemas made on the PostgreSQL server and deletes scratch directories. */
export async function cleanUp(): Promise<void> {
  if (postgresUrl && schemas.length > 0) {
    const adminSchema = uniqueSchema();
    const admin = await openDatabase({ url: postgresUrl, schema: adminSchema, migrationsDir: emptyMigrations() });
    try {
      for (const schema of schemas.splice(0)) await admin.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await admin.close();
    }
  }
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}

function emptyMigrations(): string {
  const dir = mkdtempSync(join(tmpdir(), 'minds-test-nomigrations-'));
  scratch.push(dir);
  return dir;
}

// ---------------------------------------------------------------- principals

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}`;

/** A signed-in human session with a Sandbox selection and both Minds scopes. */
export function human(overrides: Partial<VerifiedPrincipal> = {}): VerifiedPrincipal {
  return {
    credentialId: `cred_${unique()}`,
    kind: 'bridge_session',
    principal: `usr_${unique()}`,
    org: 'org_alpha',
    project: 'prj_alpha',
    workspace: 'wsp_alpha',
    sandbox: 'sbx_alpha',
    scopes: ['minds:read', 'minds:write'],
    originalSession: true,
    agentId: null,
    ...overrides,
  };
}

export function apiKey(overrides: Partial<VerifiedPrincipal> = {}): VerifiedPrincipal {
  return { ...human(), kind: 'api_key', workspace: null, sandbox: null, originalSession: false, ...overrides };
}

export function agent(agentId: string, overrides: Partial<VerifiedPrincipal> = {}): VerifiedPrincipal {
  return {
    credentialId: `cred_${unique()}`,
    kind: 'agent_credential',
    principal: agentId,
    org: 'org_alpha',
    project: null,
    workspace: null,
    sandbox: null,
    scopes: [],
    originalSession: false,
    agentId,
    ...overrides,
  };
}

export const newAgentId = () => newPrefixedId('a_');

// ---------------------------------------------------------------- gateway and IAM

export interface Gateway {
  keys: AssertionKeyPair;
  privateKey: CryptoKey;
  sign(principal: VerifiedPrincipal, options?: { ttlSeconds?: number; audience?: string }): Promise<string>;
}

export async function createGateway(): Promise<Gateway> {
  const keys = await generateAssertionKeys();
  const privateKey = await importAssertionKey(keys.privateJwk);
  return {
    keys,
    privateKey,
    sign: (principal, options = {}) =>
      signAssertion(privateKey, principal, { audience: options.audience ?? 'minds', requestId: newRequestId(), ttlSeconds: options.ttlSeconds }),
  };
}

export interface TestAgent {
  id: string;
  organizationId: string;
  did: string;
  createdAtMs: number;
}

/** The gateway's internal agent lookup: GET /internal/iam/agents/{id}, authorised by the forwarded assertion. */
export class IamServer {
  readonly agents = new Map<string, TestAgent>();
  readonly seen: { agentId: string; assertion: string | undefined }[] = [];
  #server: Server | undefined;
  url = '';

  constructor(private readonly publicJwk: AssertionKeyPair['publicJwk']) {}

  add(organizationId = 'org_alpha'): TestAgent {
    const id = newAgentId();
    const record = { id, organizationId, did: `did:web:agents.test:${id}`, createdAtMs: 1_763_640_000_000 + this.agents.size };
    this.agents.set(id, record);
    return record;
  }

  async start(): Promise<void> {
    const publicKey = await importAssertionKey(this.publicJwk);
    this.#server = createServer((req: IncomingMessage, res) => {
      void (async () => {
        const match = /^\/internal\/iam\/agents\/([^/?]+)$/.exec(req.url ?? '');
        const assertion = req.headers[ASSERTION_HEADER];
        this.seen.push({ agentId: match?.[1] ?? '', assertion: typeof assertion === 'string' ? assertion : undefined });
        if (req.method !== 'GET' || !match) return res.writeHead(404).end();
        try {
          await verifyAssertion(publicKey, String(assertion), 'minds');
        } catch {
          return res.writeHead(401).end();
        }
        const agentRecord = this.agents.get(decodeURIComponent(match[1]!));
        if (!agentRecord) return res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(agentRecord));
      })();
    });
    this.#server.listen(0, '127.0.0.1');
    await new Promise((resolve) => this.#server!.once('listening', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    if (this.#server) await new Promise<void>((resolve) => this.#server!.close(() => resolve()));
  }
}

// ---------------------------------------------------------------- HTTP

export interface Reply {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: any;
}

export interface CallOptions {
  /** Sign an assertion for this principal; null sends none. */
  as?: VerifiedPrincipal | null;
  /** Send this assertion header verbatim instead. */
  assertion?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export function rawCall(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const allHeaders = { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) };
    const req = request(base + path, { method, headers: allHeaders }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        const out: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') out[name] = value;
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode!, headers: out, text, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

// ---------------------------------------------------------------- the service under test

export interface Harness {
  url: string;
  service: MindsService;
  gateway: Gateway;
  iam: IamServer;
  call(method: string, path: string, options?: CallOptions): Promise<Reply>;
  close(): Promise<void>;
}

export interface HarnessOptions extends Partial<Omit<MindsServiceConfig, 'assertionKeys'>> {
  driver?: DriverName;
}

/** Starts the Minds service on port 0 over a fresh database, with short simulated host delays. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const gateway = await createGateway();
  const iam = new IamServer(gateway.keys.publicJwk);
  await iam.start();
  const { driver = 'pglite', ...config } = options;
  const target = databaseTarget(driver);
  const service = await createMindsService({
    ...target,
    assertionKeys: { jwks: gateway.keys.publicJwk },
    iamInternalUrls: [iam.url],
    docsBaseUrl: 'http://docs.test',
    hostProvisionMs: 60,
    hostStopMs: 40,
    logger: createLogger('minds-test'),
    ...config,
    controller: { tickMs: 15, heartbeatMs: 200, leaseMs: 5000, ...config.controller },
  });
  const { url } = await service.listen(0);
  return {
    url,
    service,
    gateway,
    iam,
    async call(method, path, callOptions = {}) {
      const headers: Record<string, string> = { ...callOptions.headers };
      if (callOptions.assertion !== undefined) headers[ASSERTION_HEADER] = callOptions.assertion;
      else if (callOptions.as) headers[ASSERTION_HEADER] = await gateway.sign(callOptions.as);
      let body = callOptions.rawBody;
      if (callOptions.body !== undefined) {
        body = JSON.stringify(callOptions.body);
        headers['content-type'] ??= 'application/json';
      }
      return rawCall(url, method, path, headers, body);
    },
    async close() {
      await service.close();
      await iam.stop();
    },
  };
}

// ---------------------------------------------------------------- flows

export async function contextOf(h: Harness, who: VerifiedPrincipal): Promise<string> {
  const reply = await h.call('GET', '/v1/minds/services', { as: who });
  if (reply.status !== 200) throw new Error(`list failed: ${reply.status} ${reply.text}`);
  return reply.body.context_sha256 as string;
}

export async function createMind(h: Harness, who: VerifiedPrincipal, body: Record<string, unknown> = { name: 'Sandbox test' }, key: string = randomUUID()): Promise<Reply> {
  const context = await contextOf(h, who);
  return h.call('POST', '/v1/minds/services', {
    as: who,
    body,
    headers: { 'idempotency-key': key, 'x-platform-minds-creation-context': context },
  });
}

export async function waitForMind(h: Harness, who: VerifiedPrincipal, mindId: string, status: string, timeoutMs = 10_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: Reply | undefined;
  while (Date.now() < deadline) {
    last = await h.call('GET', `/v1/minds/services/${mindId}`, { as: who });
    if (last.status === 200 && last.body.status === status) return last.body;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`Mind ${mindId} did not reach ${status}; last: ${last?.status} ${last?.text}`);
}

/** A Mind that the controller has brought to ready. */
export async function readyMind(h: Harness, who: VerifiedPrincipal, body?: Record<string, unknown>): Promise<any> {
  const created = await createMind(h, who, body);
  if (created.status !== 202) throw new Error(`create failed: ${created.status} ${created.text}`);
  return waitForMind(h, who, created.body.mind_id, 'ready');
}
