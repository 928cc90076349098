/**
 * For test suites and benchmarks (`@gateway-minds/db/testing`): initdb inside
 * PGlite takes seconds, a copy of an initialised directory a fraction of one.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PGlite } from '@electric-sql/pglite';

/**
 * An initdb'd PGlite data directory, made once per machine and PGlite version
 * in the system's temporary directory and shared by every suite: copy it, never
 * open it. Concurrent callers wait for the one that builds it.
 */
export async function pgliteTemplate(): Promise<string> {
  const require = createRequire(import.meta.url);
  const packageFile = join(dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
  const version = existsSync(packageFile) ? (JSON.parse(readFileSync(packageFile, 'utf8')) as { version: string }).version : 'unknown';
  const template = join(tmpdir(), `gateway-minds-pglite-template-${version}`);
  const lock = `${template}.lock`;
  while (!existsSync(template)) {
    try {
      mkdirSync(lock);
    } catch {
      // Another suite is making it; a lock older than two minutes is left over from a killed run.
      if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 120_000) rmSync(lock, { recursive: true, force: true });
      await sleep(250);
      continue;
    }
    try {
      if (existsSync(template)) break;
      // Built beside and renamed into place, so a half-built template is never seen.
      const building = `${template}.${randomBytes(4).toString('hex')}`;
      const db = await PGlite.create({ dataDir: building });
      await db.close();
      renameSync(building, template);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  return template;
}
