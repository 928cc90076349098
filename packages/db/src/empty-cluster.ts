/**
 * The empty PGlite cluster the package's build initialised (scripts/empty-cluster.ts): an empty
 * data directory starts as a copy of it instead of running initdb inside WebAssembly (about 6 s
 * of CPU against a tenth of a second for the copy), on a first `npm start` as in every test.
 */
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs';
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
  for (const entry of readdirSync(cluster)) if (entry !== 'PG_VERSION') copyLeavingHoles(join(cluster, entry), join(dir, entry));
  copyLeavingHoles(join(cluster, 'PG_VERSION'), join(dir, 'PG_VERSION'));
  return true;
}

/** The unit of a hole: a block of zeros this long is skipped, not written. */
const holeBlock = 64 * 1024;
const zeros = Buffer.alloc(holeBlock);

/**
 * Copies a file or a directory tree, writing only the blocks that hold something: a block of zeros
 * becomes a hole, which reads back as the same zeros. The cluster's WAL segment is 16 MiB of which
 * the build leaves one block in use (scripts/empty-cluster.ts), so a copy writes about a third of
 * the cluster's 24 MiB, for about three fifths of a whole copy's CPU (bench/RESULTS.md, History).
 */
function copyLeavingHoles(source: string, target: string): void {
  const stat = statSync(source);
  if (stat.isDirectory()) {
    mkdirSync(target, { mode: stat.mode });
    for (const entry of readdirSync(source)) copyLeavingHoles(join(source, entry), join(target, entry));
    return;
  }
  const bytes = readFileSync(source);
  const fd = openSync(target, 'wx', stat.mode);
  try {
    for (let offset = 0; offset < bytes.length; offset += holeBlock) {
      const block = bytes.subarray(offset, offset + holeBlock);
      if (!block.equals(zeros.subarray(0, block.length))) writeSync(fd, block, 0, block.length, offset);
    }
    // A file that ends in a hole gets its length from the truncate, not from a write.
    ftruncateSync(fd, bytes.length);
  } finally {
    closeSync(fd);
  }
}
