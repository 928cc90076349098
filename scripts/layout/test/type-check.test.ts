/**
 * `npm test` type-checks every workspace in one TypeScript process (`tsgo -b` on the root
 * tsconfig.json) instead of running each workspace's `lint`: that stands in for them only while
 * the root config references exactly the configs those `lint` scripts check with `tsgo -p`.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { manifestOf, root, workspaceDirs } from './workspaces.js';

/** `packages/cli` for its tsconfig.json, `scripts/conformance/tsconfig.browser.json` for another. */
const configName = (dir: string, file: string) => (file === 'tsconfig.json' ? dir : `${dir}/${file}`);

it("the root tsconfig.json references exactly the configs every workspace's lint script checks", () => {
  const linted = workspaceDirs.flatMap((dir) => {
    const lint: string = manifestOf(dir).scripts?.lint ?? '';
    return [...lint.matchAll(/\btsgo -p (\S+)/g)].map((match) => configName(dir, match[1]!));
  });
  const { config, error } = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  expect(error).toBeUndefined();
  const referenced = (config as { references: { path: string }[] }).references.map((reference) => reference.path.replace(/^\.\//, ''));
  expect(linted.length).toBeGreaterThan(20);
  expect([...referenced].sort()).toEqual([...linted].sort());
});
