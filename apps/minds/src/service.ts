/**
 * The Minds service: an outer Express app with GET /healthz (outside the
 * contract; the gateway's status probe calls it) in front of the contract app
 * from service-kit serving exactly the Minds operations of the operation table,
 * plus the controller loop.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express, type Request, type Response } from 'express';
import type { ServiceOperationId } from '@gateway-minds/contract';
import { openDatabase, type Database } from '@gateway-minds/db';
import {
  ADMITTED_OPERATIONS_PATH,
  ASSERTION_KEY_IDS_PATH,
  AssertionKeySet,
  createContractServer,
  refused,
  createLogger,
  createServiceApp,
  HEALTH_PATH,
  InProcessUpstream,
  withSideRoutes,
  type AdmittedOperations,
  type AssertionKeyIds,
  type AssertionKeySource,
  type HandlerTable,
  type Logger,
  type OperationHandler,
} from '@gateway-minds/service-kit';
import { HttpAgentDirectory, type AgentDirectory } from './agents.js';
import { authenticate, humanCaller } from './auth.js';
import { MindsController, type ControllerSettings } from './controller/controller.js';
import type { HostDriver } from './controller/host.js';
import { WorkListener } from './controller/wake-ups.js';
import { SimulatedHost } from './controller/simulated-host.js';
import type { Deps } from './deps.js';
import { memoryHandlers } from './memory/handlers.js';
import { lifecycleHandlers, tenantOf } from './minds/lifecycle.js';
import { ownerHandlers } from './owner/handlers.js';
import { admissionSettings, DAY_MS, mindsOperations, USAGE_WINDOW_MAX_MS } from './spec.js';
import { mapMindsError } from './unavailable.js';
import { readUsage } from './usage.js';

export const migrationsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'migrations');

export interface MindsServiceConfig {
  /** PostgreSQL URL; when absent, embedded PGlite in `dataDir`. */
  databaseUrl?: string;
  /** PGlite data directory (DATA_DIR/minds in main.ts). */
  dataDir?: string;
  /** Database schema, default `minds`. */
  schema?: string;
  /** The planner's price of reading a page (OpenDatabaseOptions.pageCost), default MINDS_PAGE_COST; 'server' keeps the server's own. */
  databasePageCost?: number | 'server';
  /** The gateway public keys whose assertions it accepts (AssertionKeySet: a set, or a file re-read when it changes). */
  assertionKeys: AssertionKeySource;
  /** Base URLs of the gateways' internal IAM, their admin listeners (agent lookups; agents.ts). */
  iamInternalUrls: string[];
  docsBaseUrl: string;
  /** Admission settings by name (x-admission-setting); a setting not set here is off. */
  admissions?: Record<string, boolean>;
  /** Simulated host delays; ignored when `hostDriver` is given. */
  hostProvisionMs?: number;
  hostStopMs?: number;
  hostDriver?: HostDriver;
  /** The controller loop (ControllerSettings in controller/controller.ts; CONTROLLER_DEFAULTS where absent). */
  controller?: { enabled?: boolean } & Partial<ControllerSettings>;
  /** Usage reports a running Mind as host_not_reporting after this much host silence. Default 60 s. */
  hostReportStaleMs?: number;
  agentDirectory?: AgentDirectory;
  region?: string;
  mindBaseUrl?: (mindId: string) => string;
  validateResponses?: boolean;
  logger?: Logger;
}

export interface MindsService {
  app: Express;
  db: Database;
  controller: MindsController;
  host: HostDriver;
  listen(port: number, host?: string): Promise<{ port: number; url: string }>;
  /**
   * The same listener, reached from the gateway in this process (the all-in-one topology):
   * its connections are in memory, everything else is as over TCP.
   */
  serveInProcess(): InProcessUpstream;
  close(): Promise<void>;
}

/**
 * The planner's price of reading a page, for the Minds database's sessions: the pages its
 * statements read (a namespace's newest events, the text index, one Mind's rows) are in memory,
 * and PostgreSQL's defaults (1 sequential, 4 random) price a read from disk. Its documentation
 * advises equal, low costs, "for example, 0.1", when the data is in memory. Measured on the
 * memory search over scripts/bench/search.ts's data (PostgreSQL 15, 7 runs each): with the defaults, the
 * planner walked the recency index for a pair of common words at 100k events (12.4 ms) where the
 * text index takes 4.0 ms, because it expects twice the matches there are; at 0.1 it reads the
 * text index there and still walks at 1M, where the text index costs 24 ms. No other term or size
 * changed plan (a rare word and a common one, at 10k, 100k and 1M).
 */
export const MINDS_PAGE_COST = 0.1;

/** Default region and base URL of the Minds this (simulated) deployment runs. */
export const DEFAULT_REGION = 'local';
export const defaultMindBaseUrl = (mindId: string) => `https://${mindId}.minds.localhost`;

export async function createMindsService(config: MindsServiceConfig): Promise<MindsService> {
  const logger = config.logger ?? createLogger('minds');
  const assertionKeys = await AssertionKeySet.open(config.assertionKeys, logger);
  const pageCost = config.databasePageCost ?? MINDS_PAGE_COST;
  const db = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    schema: config.schema ?? 'minds',
    migrationsDir,
    pageCost: pageCost === 'server' ? undefined : pageCost,
  });
  const admissions: Record<string, boolean> = Object.fromEntries(admissionSettings.map((name) => [name, config.admissions?.[name] === true]));
  const host = config.hostDriver ?? new SimulatedHost(db, { provisionMs: config.hostProvisionMs ?? 1500, stopMs: config.hostStopMs ?? 800 });
  const deps: Deps = {
    db,
    agents: config.agentDirectory ?? new HttpAgentDirectory(config.iamInternalUrls),
    logger,
    region: config.region ?? DEFAULT_REGION,
    mindBaseUrl: config.mindBaseUrl ?? defaultMindBaseUrl,
    hostReportStaleMs: config.hostReportStaleMs ?? 60_000,
    desiredStateChanged: () => controller.wake(),
  };

  async function getUsage(req: Request, res: Response): Promise<void> {
    const caller = humanCaller(res);
    const fromText = String(req.query.from);
    const toText = String(req.query.to);
    const from = new Date(fromText);
    const to = new Date(toText);
    const span = to.getTime() - from.getTime();
    if (!(span > 0) || span > USAGE_WINDOW_MAX_MS) {
      throw refused('usage-window-invalid', { values: { days: USAGE_WINDOW_MAX_MS / DAY_MS } });
    }
    // A window that has not started has no usage yet, complete or not (DECISIONS.md, "A usage window reaching past now").
    const now = new Date();
    if (from.getTime() >= now.getTime()) {
      throw refused('usage-window-not-started');
    }
    res.json(await readUsage(db, tenantOf(caller), { from, to, fromText, toText }, { hostReportStaleMs: deps.hostReportStaleMs, now }));
  }

  // One handler per Minds operation of the contract. An operation added to the spec is a type error
  // here, naming it, until its handler is bound: `npm run scaffold:handler -- <operationId>` writes one.
  const byOperation = {
    ...lifecycleHandlers(deps),
    ...memoryHandlers(deps),
    ...ownerHandlers(deps),
    minds_getUsage: getUsage,
    // npm run scaffold:handler binds a new operation's handler above this line.
  } satisfies HandlerTable<ServiceOperationId<'minds'>>;
  // The table is checked above; bound, each handler takes the request as Express gives it.
  const handlers: Record<string, OperationHandler> = Object.fromEntries(
    Object.entries(byOperation as unknown as Record<string, (req: Request, res: Response) => Promise<void>>).map(([operationId, handle]) => [operationId, (req, res, next) => handle(req, res).catch(next)]),
  );

  const serviceApp = createServiceApp({
    operations: mindsOperations,
    handlers,
    validateResponses: config.validateResponses ?? process.env.NODE_ENV !== 'production',
    docsBaseUrl: config.docsBaseUrl,
    logger,
    authenticate: authenticate(assertionKeys, admissions),
    trustRequestIdHeader: true,
    mapError: mapMindsError,
  });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get(HEALTH_PATH, async (_req, res) => {
    try {
      await db.query('SELECT 1');
      res.json({ status: 'ok' });
    } catch {
      res.status(503).json({ status: 'unavailable' });
    }
  });
  // What the gateway lists in GET /v1/openapi.json: every operation whose admission setting is on or absent.
  const admitted: AdmittedOperations = {
    operations: mindsOperations.filter((o) => !o.admissionSetting || admissions[o.admissionSetting]).map((o) => o.operationId),
  };
  app.get(ADMITTED_OPERATIONS_PATH, (_req, res) => {
    res.json(admitted);
  });
  // Looks at a key file first, so the gateway sees a key added a moment ago.
  app.get(ASSERTION_KEY_IDS_PATH, async (_req, res) => {
    await assertionKeys.refresh();
    res.json({ kids: assertionKeys.kids() } satisfies AssertionKeyIds);
  });
  app.use(serviceApp);
  const listener = withSideRoutes(serviceApp, { [HEALTH_PATH]: app, [ADMITTED_OPERATIONS_PATH]: app, [ASSERTION_KEY_IDS_PATH]: app });

  const { enabled: _enabled, ...controllerSettings } = config.controller ?? {};
  const controller = new MindsController(db, host, { ...controllerSettings, logger });
  // On PostgreSQL other replicas change desired states too: each one's change wakes this controller.
  const wakeUps = config.databaseUrl && config.controller?.enabled !== false ? new WorkListener(config.databaseUrl, config.schema ?? 'minds', () => controller.wake(), logger) : undefined;
  if (config.controller?.enabled !== false) {
    controller.start();
    await wakeUps?.start();
  }

  let server: Server | undefined;
  let inProcess: InProcessUpstream | undefined;
  let closed = false;
  const contractServer = () => createContractServer(listener, { logger, docsBaseUrl: config.docsBaseUrl, app: serviceApp });
  return {
    app,
    db,
    controller,
    host,
    async listen(port, hostname = '127.0.0.1') {
      server = contractServer().listen(port, hostname);
      await once(server, 'listening');
      const address = server.address() as AddressInfo;
      return { port: address.port, url: `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${address.port}` };
    },
    serveInProcess() {
      inProcess ??= new InProcessUpstream(contractServer());
      return inProcess;
    },
    async close() {
      if (closed) return;
      closed = true;
      await wakeUps?.close();
      await controller.stop();
      assertionKeys.close();
      inProcess?.close();
      if (server) {
        const listening = server;
        await new Promise<void>((resolve) => {
          listening.close(() => resolve());
          listening.closeAllConnections();
        });
      }
      await db.close();
    },
  };
}
