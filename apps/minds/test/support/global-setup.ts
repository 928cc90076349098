/**
 * initdb inside PGlite takes seconds; a reopen well under one. One initialised
 * data directory per run, copied by every test file that needs a database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const root = mkdtempSync(join(tmpdir(), 'minds-test-template-'));
  const template = join(root, 'pgdata');
  const pg = await PGlite.create({ dataDir: template });
  await pg.close();
  project.provide('pgliteTemplate', template);
  return () => rmSync(root, { recursive: true, force: true });
}
