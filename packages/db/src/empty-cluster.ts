/**
 * The empty PGlite cluster the package's build initialised (scripts/empty-cluster.ts): an empty
 * data directory starts as a copy of it instead of running initdb inside WebAssembly (about 6 s
 * of CPU against about 0.5 s for the copy), on a first `npm start` as in every test.
 */
import { copyFileSync, cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** In the package's dist (this module runs from src/ in tests and from dist/ when built). */
export const emptyClusterDir = fileURLToPath(new URL('../dist/empty-cluster', import.meta.url));
/** `{ "pglite": "<version>" }`: the PGlite that initialised it. */
export const emptyClusterManifest = `${emptyClusterDir}.json`;

export function installedPgliteVersion(): string {
  // The package's exports do not list package.json; its main entry sits in dist/.
  const packageFile = join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), '..', 'package.json');
  return (JSON.parse(readFileSync(packageFile, 'utf8')) as { version: string }).version;
}

/**
 * The built cluster, when there is one from the PGlite installed now: a cluster from another
 * version is not copied (PGlite then runs initdb as it would without one).
 */
export function builtEmptyCluster(): string | undefined {
  if (!existsSync(emptyClusterManifest) || !existsSync(`${emptyClusterDir}/PG_VERSION`)) return undefined;
  const { pglite } = JSON.parse(readFileSync(emptyClusterManifest, 'utf8')) as { pglite?: string };
  return pglite === installedPgliteVersion() ? emptyClusterDir : undefined;
}

/**
 * Makes `dir`, an empty directory its caller holds the lock of, a copy of the built cluster. The
 * copy goes into the directory itself (a deployer may have mounted a volume there) with PG_VERSION
 * last: PGlite takes a directory with PG_VERSION for a cluster, so a copy killed halfway is left as
 * a killed initdb would leave it, never taken for a whole cluster. Returns whether it copied.
 */
export function seedFromEmptyCluster(dir: string): boolean {
  if (readdirSync(dir).length > 0) return false;
  const cluster = builtEmptyCluster();
  if (!cluster) return false;
  for (const entry of readdirSync(cluster)) if (entry !== 'PG_VERSION') cpSync(join(cluster, entry), join(dir, entry), { recursive: true });
  copyFileSync(join(cluster, 'PG_VERSION'), join(dir, 'PG_VERSION'));
  return true;
}
