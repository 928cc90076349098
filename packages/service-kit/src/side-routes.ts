import type { IncomingMessage, ServerResponse } from 'node:http';

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * Where every service answers its liveness probe, outside the contract: the gateway's status
 * route probes it (spec/DECISIONS.md, "The status probe") and `npm start` waits on it.
 */
export const HEALTH_PATH = '/healthz';

/**
 * Where a service says, outside the contract, which of its operations it admits now:
 * `{"operations": ["minds_listMinds", ...]}`. The gateway's GET /v1/openapi.json lists an
 * operation behind an admission setting only when its service names it here
 * (spec/DECISIONS.md, "The openapi.json body").
 */
export const ADMITTED_OPERATIONS_PATH = '/admitted-operations';

/** The body a service answers at ADMITTED_OPERATIONS_PATH. */
export interface AdmittedOperations {
  operations: string[];
}

/**
 * Where a service says, outside the contract, which gateway signing keys it trusts now: the
 * `kid`s of its assertion key set, `{"kids": ["..."]}`. The gateway compares its own signing key's
 * id, so that a gateway whose assertions a service would refuse says so in GET /v1/status and
 * answers FLOCKS_SIGNING_KEY_MISSING instead of relaying the service's 401 (spec/DECISIONS.md,
 * "Assertion keys and their rotation").
 */
export const ASSERTION_KEY_IDS_PATH = '/assertion-key-ids';

/** The body a service answers at ASSERTION_KEY_IDS_PATH. */
export interface AssertionKeyIds {
  kids: string[];
}

/**
 * The HTTP listener of a service: requests under a side prefix outside the contract (the
 * gateway's /docs site, a service's /healthz) go to that prefix's handler, everything else
 * straight to the contract app. Mounting the contract app inside an outer Express app instead
 * made every API request cross two Express apps.
 */
export function withSideRoutes(contractApp: Handler, side: Record<string, Handler>): (req: IncomingMessage, res: ServerResponse) => void {
  const routes = Object.entries(side).map(([prefix, handler]) => ({ prefix, handler }));
  return (req, res) => {
    const url = req.url ?? '';
    // A prefix matches itself, or itself followed by a path, a query or a fragment: /docs/x, not /docsearch.
    const side = routes.find(({ prefix }) => url.startsWith(prefix) && (url.length === prefix.length || '/?#'.includes(url[prefix.length]!)));
    void (side ? side.handler(req, res) : contractApp(req, res));
  };
}
