/**
 * initdb inside PGlite takes seconds, a copy of an initialised directory a
 * fraction of one: every test file that needs a database copies the shared template.
 */
import { pgliteTemplate } from '../../src/testing.js';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  project.provide('pgliteTemplate', await pgliteTemplate());
}
