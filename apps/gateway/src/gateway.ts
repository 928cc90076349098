/**
 * Assembles the gateway: the credential store and its database, the gateway's
 * own routes (bound by operation id through service-kit's contract pipeline),
 * forwarding of every other contract operation to its service, and the admin
 * listener.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { importJWK, type CryptoKey } from 'jose';
import { operationTable, type OperationFacts } from '@gateway-minds/contract';
import { docsSiteDir, setSiteHeaders } from '@gateway-minds/docs';
import { openDatabase, type Database } from '@gateway-minds/db';
import {
  AssertionKeySet,
  ServiceError,
  BODY_LIMIT_BYTES,
  createLogger,
  createOperationRouter,
  createAssertionSigner,
  createContractServer,
  createServiceApp,
  docsBaseUrlOf,
  HEALTH_PATH,
  rawBodyReader,
  readAssertionSigningKey,
  refused,
  requestContext,
  shapeError,
  withSideRoutes,
  type Logger,
  type VerifiedPrincipal,
} from '@gateway-minds/service-kit';
import { createAdminApp } from './admin/admin-app.js';
import { adminUrlFile } from './admin/admin-rules.js';
import { createAuthenticator } from './auth/authenticate.js';
import { DpopVerifier } from './auth/dpop.js';
import { consumeForAddress, createRateLimiter } from './auth/rate-limit.js';
import type { GatewayConfig } from './config.js';
import { withCors } from './cors.js';
import { CredentialStore } from './iam/credentials.js';
import { forward } from './routing/forward.js';
import { gatewayPreflight } from './routing/preflight.js';
import { AdmissionProbe } from './routing/admission-probe.js';
import { SigningKeyTrust } from './routing/signing-key-trust.js';
import { StatusProbe } from './routing/status-probe.js';
import { UpstreamRegistry } from './routing/upstreams.js';
import { gatewayHandlers, usageReadGuard } from './routes/gateway-routes.js';
import { UsageRecorder } from './usage/usage-recorder.js';
import { openSharedStores } from './stores.js';

/** Services the gateway answers itself: its own routes and the built-in iam (credential verification). */
export const BUILT_IN_SERVICES = ['gateway', 'iam'] as const;
const migrationsDir = join(dirname(fileURLToPath(import.meta.url)), '../migrations');

export interface Gateway {
  url: string;
  adminUrl: string;
  /** The base of every `docs_url` this gateway emits; a service behind it should emit the same. */
  docsBaseUrl: string;
  adminToken: string;
  db: Database;
  store: CredentialStore;
  probe: StatusProbe;
  close(): Promise<void>;
}

/**
 * The token in `file`, made on first start: written whole to a file of its own, then linked into
 * place, which fails if the file exists. Gateways starting at once on one data directory so all
 * end up with the token the first of them linked, and none reads a half-written file.
 */
function readOrCreateAdminToken(file: string): string {
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    const written = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(written, `adm_${randomBytes(24).toString('base64url')}`, { mode: 0o600 });
    try {
      linkSync(written, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(written, { force: true });
    }
  }
  return readFileSync(file, 'utf8').trim();
}

export async function startGateway(config: GatewayConfig, logger: Logger = createLogger('gateway')): Promise<Gateway> {
  const db = await openDatabase({
    url: config.databaseUrl,
    dataDir: join(config.dataDir, 'gateway'),
    schema: config.databaseSchema,
    migrationsDir,
  });
  const store = new CredentialStore(db, config.credentialCacheMs);
  const first = await store.seedFirstOrganization('Development');
  if (first.seeded) logger.info({ organizationId: first.organizationId, projectId: first.projectId }, 'seeded a development organization and project');

  const signingKey = await readAssertionSigningKey({ jwk: config.assertionPrivateKey, file: config.assertionPrivateKeyFile });
  if (!signingKey) logger.warn({ file: config.assertionPrivateKeyFile }, 'no assertion signing key: nothing will be forwarded');
  else logger.info({ kid: signingKey.kid }, 'signing assertions');
  const assertionFor = signingKey ? createAssertionSigner(signingKey) : undefined;
  const registry = new UpstreamRegistry(config.upstreams);
  const keyTrust = signingKey ? new SigningKeyTrust(registry, signingKey.kid, logger) : undefined;
  const usage = new UsageRecorder(db);

  // Rate limits and DPoP state live in the store the deployment's gateways share (stores.ts); the
  // gateway listens only once that store answers, so it takes no traffic it would refuse.
  const stores = await openSharedStores(config, db, logger);
  if (!(await stores.waitUntilReady(config.stores.startupWaitMs))) {
    logger.warn({ waitedMs: config.stores.startupWaitMs }, `listening although a shared store does not answer: ${HEALTH_PATH} reports not ready`);
  }
  const probe = new StatusProbe(registry, ['iam'], () => stores.probe(), keyTrust ?? 'missing');
  const limiter = await createRateLimiter({ ...config.rateLimit, ...stores.limiter });
  // Credential verification needs no credential, so it is limited per client address instead (DECISIONS.md "Rate limits").
  const verifyLimiter = await createRateLimiter({ ...config.rateLimit, ...config.verifyRateLimit, ...stores.limiter, keyPrefix: 'gateway-verify' });
  const verifyRateGuard: RequestHandler = (req, _res, next) => {
    consumeForAddress(verifyLimiter, req).then(() => next(), next);
  };
  // So are the paths the contract does not name, which are forwarded without a credential: else an
  // anonymous flood would reach the service unlimited.
  const unnamedPathLimiter = await createRateLimiter({ ...config.rateLimit, ...config.unnamedPathRateLimit, ...stores.limiter, keyPrefix: 'gateway-unnamed' });
  const dpop = new DpopVerifier({ requireNonce: config.dpop.requireNonce, iatWindowSeconds: config.dpop.iatWindowSeconds, replay: stores.replay, nonceSecret: stores.nonceSecret });
  let publicBaseUrl = config.publicBaseUrl;
  const authenticate = createAuthenticator({ store, dpop, limiter, publicBaseUrl: () => publicBaseUrl });
  const docsBaseUrl = () => docsBaseUrlOf({ DOCS_BASE_URL: config.docsBaseUrl }, publicBaseUrl);

  /** Authenticates for the matched operation, and counts the answer for the caller's organization. */
  async function authenticateFor(req: Request, res: Response, operation: OperationFacts): Promise<VerifiedPrincipal | null> {
    const principal = await authenticate(req, operation);
    res.locals.principal = principal;
    if (principal) res.on('finish', () => usage.record(principal.org, operation.service, res.statusCode));
    return principal;
  }

  const ownOperations = (Object.values(operationTable) as OperationFacts[]).filter((o) => (BUILT_IN_SERVICES as readonly string[]).includes(o.service));
  const forwardedOperations = (Object.values(operationTable) as OperationFacts[]).filter((o) => !ownOperations.includes(o));
  const forwardedRouter = createOperationRouter(forwardedOperations);
  // Refused at the limit while the body streams (service-kit's body-reader.ts).
  const readRawBody = rawBodyReader(BODY_LIMIT_BYTES);

  /**
   * A path `/v1/<service>/...` of a registered service that the contract does not name is forwarded
   * to that service, which answers it (interface, "Gateway routes"). No operation says what it
   * needs, so only its method, path and query travel: no credential is checked or passed on and no
   * body is read; the service's error envelope is relayed (DECISIONS.md "Paths the contract does not name").
   * Taking no credential, it is limited per client address, as verification is.
   */
  async function forwardUnnamed(req: Request, res: Response): Promise<void> {
    const service = /^\/v1\/([^/]+)\//.exec(req.path)?.[1];
    const upstream = service === undefined ? undefined : registry.get(service);
    if (!upstream) throw refused('route-not-found');
    if (!upstream.enabled) {
      throw new ServiceError('SERVICE_DISABLED', `The ${upstream.name} service is registered but not enabled.`, { retryAfterSeconds: upstream.disabledRetryAfterSeconds });
    }
    await consumeForAddress(unnamedPathLimiter, req);
    await forward(
      { upstream, operation: undefined, principal: null, requestId: requestContext(res).requestId, method: req.method, url: req.originalUrl, headers: {}, body: undefined },
      assertionFor ?? (() => Promise.reject(new Error('unreachable: no principal, no assertion'))),
      res,
    );
  }

  async function forwardRequest(req: Request, res: Response, next: NextFunction): Promise<void> {
    try {
      const match = forwardedRouter.match(req.method, req.path);
      if (match.kind === 'not-found') return await forwardUnnamed(req, res);
      if (match.kind === 'method-not-allowed') {
        throw refused('method-not-allowed', { values: { method: req.method }, headers: { Allow: match.allow.join(', ') } });
      }
      const { operation } = match;
      Object.assign(requestContext(res), { operation, pathParams: match.pathParams });
      const upstream = registry.get(operation.service);
      if (!upstream) throw new ServiceError('ROUTE_NOT_FOUND', `No service ${operation.service} is registered.`);
      const principal = await authenticateFor(req, res, operation);
      if (!upstream.enabled) {
        throw new ServiceError('SERVICE_DISABLED', `The ${upstream.name} service is registered but not enabled.`, { retryAfterSeconds: upstream.disabledRetryAfterSeconds });
      }
      if (!assertionFor) throw new ServiceError('FLOCKS_SIGNING_KEY_MISSING', 'The service is routed without its verification key; nothing was forwarded.', { reason: 'signing_key_missing' });
      if (await keyTrust!.refuses(upstream)) {
        throw new ServiceError('FLOCKS_SIGNING_KEY_MISSING', `The ${upstream.name} service does not trust this gateway's assertion signing key; nothing was forwarded.`, { reason: 'signing_key_untrusted' });
      }
      const shape = shapeError(req, operation);
      if (shape) throw shape;
      if (operation.hasRequestBody) await new Promise<void>((resolve, reject) => readRawBody(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
      await forward(
        {
          upstream,
          operation,
          principal,
          requestId: requestContext(res).requestId,
          method: req.method,
          url: req.originalUrl,
          headers: req.headers,
          body: Buffer.isBuffer(req.body) ? req.body : undefined,
        },
        assertionFor,
        res,
      );
    } catch (error) {
      next(error);
    }
  }

  const app = createServiceApp({
    operations: ownOperations,
    handlers: gatewayHandlers({
      db,
      store,
      probe,
      admissions: new AdmissionProbe(registry, forwardedOperations),
      usage,
      docsBaseUrl,
      publicBaseUrl: () => publicBaseUrl,
      builtInServices: BUILT_IN_SERVICES,
    }),
    validateResponses: config.validateResponses,
    docsBaseUrl,
    logger,
    preflight: gatewayPreflight,
    authenticate: async (req, res, next) => {
      try {
        await authenticateFor(req, res, requestContext(res).operation);
        next();
      } catch (error) {
        next(error);
      }
    },
    operationGuards: {
      [operationTable.gateway_getUsage.operationId]: usageReadGuard,
      [operationTable.iam_verifyCredential.operationId]: verifyRateGuard,
    },
    unmatched: (req, res, next) => forwardRequest(req, res, next),
  });

  // The reference site at /docs, so that every docs_url the stack emits resolves locally;
  // what it does not have falls through to the API's ROUTE_NOT_FOUND.
  const docs = express();
  docs.disable('x-powered-by');
  docs.use('/docs', express.static(docsSiteDir, { index: 'index.html', fallthrough: true, setHeaders: setSiteHeaders }));
  docs.use(app);
  // CORS around everything the listener answers, so errors carry it too (cors.ts).
  const root = withCors(withSideRoutes(app, { '/docs': docs, [HEALTH_PATH]: stores.health }), config.corsAllowedOrigins);

  const adminToken = config.adminToken ?? readOrCreateAdminToken(config.adminTokenFile);
  const lookupKeys = config.assertionPublicKeys ? await AssertionKeySet.open(config.assertionPublicKeys, logger, signingKey ? [signingKey.publicJwk] : []) : undefined;
  const adminApp = createAdminApp({
    store,
    adminToken,
    assertionPublicKey: lookupKeys ?? (signingKey ? ((await importJWK(signingKey.publicJwk, 'EdDSA')) as CryptoKey) : null),
    audiences: registry.all().map((u) => u.name),
  });

  const listen = (server: Server, port: number) =>
    new Promise<Server>((resolve, reject) => {
      server.listen(port, config.host);
      server.once('listening', () => resolve(server));
      server.once('error', reject);
    });
  const server = await listen(createContractServer(root, { logger, docsBaseUrl, app }), config.port);
  server.keepAliveTimeout = 65_000;
  const adminServer = await listen(createServer(adminApp), config.adminPort);
  const url = `http://${config.host}:${(server.address() as AddressInfo).port}`;
  const adminUrl = `http://${config.host}:${(adminServer.address() as AddressInfo).port}`;
  if (config.port === 0 && publicBaseUrl.endsWith(':0')) publicBaseUrl = url;
  // Beside the admin token, so the admin command finds this listener from the data directory alone
  // (ADMIN_PORT may have moved it) instead of sending the token to whatever listens on a default port.
  const urlFile = adminUrlFile(config.adminTokenFile);
  writeFileSync(urlFile, `${adminUrl}\n`, { mode: 0o600 });
  logger.info({ url, adminUrl }, 'gateway listening');
  void keyTrust?.checkAll();

  return {
    url,
    adminUrl,
    docsBaseUrl: docsBaseUrl(),
    adminToken,
    db,
    store,
    probe,
    async close() {
      await Promise.all([
        new Promise((resolve) => server.close(resolve)),
        new Promise((resolve) => adminServer.close(resolve)),
      ]);
      server.closeAllConnections();
      // Only our own record: another gateway may have started on this directory since.
      if (existsSync(urlFile) && readFileSync(urlFile, 'utf8').trim() === adminUrl) rmSync(urlFile, { force: true });
      await usage.close();
      await registry.close();
      lookupKeys?.close();
      await stores.close();
      await db.close();
    },
  };
}

