/**
 * The loop's addresses: the settings `npm start`, `npm run mock` and `npm run docs:serve` read,
 * with their defaults, so that `npm run dev` answers where each of them would.
 */
import { join, resolve } from 'node:path';
import { repoRoot } from './paths.js';

export interface DevSettings {
  /** The gateway (PORT, default 8080). */
  port: number;
  /** The gateway's admin listener (ADMIN_PORT, default 8081). */
  adminPort: number;
  /** The Minds service behind the gateway (MINDS_PORT, default 8090). */
  mindsPort: number;
  /** The Prism mock (MOCK_PORT, default 4010). */
  mockPort: number;
  /** The docs site, with live reload (DOCS_PORT, default 8082). */
  docsPort: number;
  /** The stack's data (DATA_DIR, default ./data), as `npm start` keeps it. */
  dataDir: string;
}

function portOf(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`${name} must be a port number, got ${JSON.stringify(text)}`);
  return port;
}

export function devSettings(env: NodeJS.ProcessEnv = process.env): DevSettings {
  return {
    port: portOf(env, 'PORT', 8080),
    adminPort: portOf(env, 'ADMIN_PORT', 8081),
    mindsPort: portOf(env, 'MINDS_PORT', 8090),
    mockPort: portOf(env, 'MOCK_PORT', 4010),
    docsPort: portOf(env, 'DOCS_PORT', 8082),
    dataDir: resolve(env.DATA_DIR || join(repoRoot, 'data')),
  };
}
