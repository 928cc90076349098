/**
 * Part of the package's build: runs PGlite's initdb once, into dist/empty-cluster, and records the
 * PGlite version beside it. openPglite starts every empty data directory as a copy of it (see
 * src/empty-cluster.ts), so a first start, a test's fresh database and a scratch copy's stack skip
 * initdb, which costs about 6 s of CPU inside WebAssembly where the copy costs about a tenth of a
 * second.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { emptyClusterDir, emptyClusterManifest, installedPgliteVersion } from '../src/empty-cluster.js';

rmSync(emptyClusterDir, { recursive: true, force: true });
rmSync(emptyClusterManifest, { force: true });
mkdirSync(`${emptyClusterDir}/..`, { recursive: true });
// Made beside and renamed into place: a build stopped halfway leaves no cluster to copy.
const building = `${emptyClusterDir}.building`;
rmSync(building, { recursive: true, force: true });
const db = await PGlite.create({ dataDir: building });
// Only the database PGlite opens (postgres) is kept. The templates are read by CREATE DATABASE
// alone, which a PGlite of this project never runs, and they are 600 of the cluster's 971 files:
// every data directory copies the cluster, and creating files is most of what a copy costs.
await db.exec(`UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`);
await db.exec('DROP DATABASE template0');
await db.exec('DROP DATABASE template1');
// initdb's WAL fills 7 of the segment's 16 MiB, and the checkpoint does not need it: a switch to a
// new segment and a checkpoint that removes the old one (not recycled: a recycled segment keeps
// its bytes) leave a segment that is zeros past its first block, which a seed does not write.
await db.exec('SET wal_recycle = off');
await db.query('SELECT pg_switch_wal()');
await db.exec('CHECKPOINT');
await db.close();
renameSync(building, emptyClusterDir);
writeFileSync(emptyClusterManifest, `${JSON.stringify({ pglite: installedPgliteVersion() })}\n`);
console.log(`db: ${emptyClusterDir} initialised by PGlite ${installedPgliteVersion()}`);
