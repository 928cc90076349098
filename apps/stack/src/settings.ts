/**
 * What `npm start` reads from the environment, for either topology:
 *
 *   STACK_TOPOLOGY  all-in-one (default): the gateway and its services in this one process, the
 *                   gateway forwarding over an in-process transport; processes: each in a process
 *                   of its own, forwarding over loopback TCP (the shape several machines take)
 *   DATA_DIR        ./data at the repository root: each service's PGlite database, the assertion
 *                   key pair, the admin token
 *   PORT            8080, the gateway (and the docs site it serves)
 *   ADMIN_PORT      8081, the gateway's admin listener
 *   MINDS_PORT      8090, the Minds service's own listener; only with STACK_TOPOLOGY=processes
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { docsBaseUrlOf } from '@gateway-minds/service-kit/public-urls';

export const TOPOLOGIES = ['all-in-one', 'processes'] as const;
export type Topology = (typeof TOPOLOGIES)[number];

export interface StackSettings {
  topology: Topology;
  repoRoot: string;
  dataDir: string;
  gatewayPort: string;
  adminPort: string;
  mindsPort: string;
  /** The site the gateway serves, on whatever PORT it has: both services link their errors to it. */
  docsBaseUrl: string;
}

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export function stackSettings(env: NodeJS.ProcessEnv = process.env): StackSettings {
  const topology = (env.STACK_TOPOLOGY || 'all-in-one') as Topology;
  if (!TOPOLOGIES.includes(topology)) throw new Error(`STACK_TOPOLOGY must be one of ${TOPOLOGIES.join(', ')}, got ${JSON.stringify(env.STACK_TOPOLOGY)}`);
  const gatewayPort = env.PORT ?? '8080';
  return {
    topology,
    repoRoot,
    dataDir: resolve(env.DATA_DIR ?? join(repoRoot, 'data')),
    gatewayPort,
    adminPort: env.ADMIN_PORT ?? '8081',
    mindsPort: env.MINDS_PORT ?? '8090',
    docsBaseUrl: docsBaseUrlOf({ ...env, PORT: gatewayPort }),
  };
}
