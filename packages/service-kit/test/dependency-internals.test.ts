/**
 * The dependency behaviour this package leans on was read for one version of each dependency
 * (src/dependency-internals.ts). A different installed version fails here, so that the list is read
 * again before the upgrade lands, not after apps that share one validator start to mix requests.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WRITTEN_FOR } from '../src/dependency-internals.js';

/** The installed version of a package, from the package.json above the entry point Node resolves. */
function installedVersion(name: string): string {
  let dir = dirname(createRequire(import.meta.url).resolve(name));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version: string };
      if (manifest.name === name) return manifest.version;
    } catch {
      // no package.json at this level
    }
    if (dirname(dir) === dir) throw new Error(`no package.json for ${name}`);
    dir = dirname(dir);
  }
}

describe('the dependency internals list', () => {
  for (const [name, version] of Object.entries(WRITTEN_FOR)) {
    it(`was written for the installed ${name}`, () => {
      expect(installedVersion(name), `${name} changed: re-read src/dependency-internals.ts, then update WRITTEN_FOR`).toBe(version);
    });
  }
});
