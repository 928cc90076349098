/** The repository's workspaces, as npm's `workspaces` globs list them: `packages/cli`, `apps/minds`, `scripts/dev`... */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const root = join(import.meta.dirname, '../../..');

export const workspaceDirs: string[] = ['packages', 'apps', 'scripts'].flatMap((top) =>
  readdirSync(join(root, top))
    .map((name) => `${top}/${name}`)
    .filter((dir) => existsSync(join(root, dir, 'package.json'))),
);

/** A workspace's package.json, its fields read as each test needs them. */
export const manifestOf = (dir: string): Record<string, any> => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
