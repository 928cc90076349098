/**
 * Dependencies point down: a library under packages/ neither depends on nor imports anything under
 * apps/ (what runs) or scripts/ (the repository's tooling), an application nothing under scripts/,
 * and no relative import leaves its workspace (another workspace is reached through its exports).
 * And no module imports itself round a circle. dpdm reads every source, test and script file and
 * resolves its imports.
 */
import { dirname, join, relative } from 'node:path';
import { parseCircular, parseDependencyTree } from 'dpdm';
import { describe, expect, it } from 'vitest';
import { manifestOf, root, workspaceDirs } from './workspaces.js';

const workspaces = new Map(workspaceDirs.map((dir) => [manifestOf(dir), dir]));
const dirOf = new Map([...workspaces].map(([manifest, dir]) => [manifest.name as string, dir]));
/** packages/ (libraries) below apps/ (what runs) below scripts/ (the repository's tooling). */
const rank = (dir: string) => ['packages', 'apps', 'scripts'].indexOf(dir.split('/')[0]!);
const workspaceOf = (file: string) => file.split('/').slice(0, 2).join('/');

const tree = await parseDependencyTree(['{packages,apps,scripts}/*/{src,test,scripts,bin,fixture}/**/*.{ts,mts,js,mjs}', 'scripts/bench/**/*.ts'], {
  context: root,
  cwd: root,
  exclude: /node_modules|\/dist\/|\.test-results/,
  // Type-only imports are erased before anything runs, so they cannot make a circle at run time.
  transform: true,
});

describe('dependencies point down', () => {
  it('no workspace depends on one above it (packages/ on apps/ or scripts/, apps/ on scripts/)', () => {
    const upward = [...workspaces].flatMap(([manifest, dir]) =>
      Object.keys({ ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies })
        .filter((name) => dirOf.has(name) && rank(dirOf.get(name)!) > rank(dir))
        .map((name) => `${dir} -> ${name}`));
    expect(upward).toEqual([]);
  });

  it('no file imports a workspace above its own, and no relative import leaves its workspace', () => {
    const wrong = Object.entries(tree).flatMap(([file, deps]) => (deps ?? []).flatMap(({ request }) => {
      const named = /^(@gateway-minds\/[^/]+)/.exec(request)?.[1];
      if (named && dirOf.has(named)) return rank(dirOf.get(named)!) > rank(file) ? [`${file}: ${request}`] : [];
      if (!request.startsWith('.')) return [];
      const target = relative(root, join(root, dirname(file), request));
      return workspaceOf(target) === workspaceOf(file) ? [] : [`${file}: ${request}`];
    }));
    expect(wrong).toEqual([]);
  });
});

describe('no import circles', () => {
  it('no module reaches itself through its imports (static or dynamic)', () => {
    expect(Object.keys(tree).length).toBeGreaterThan(300);
    expect(parseCircular(tree).map((circle) => circle.join(' -> '))).toEqual([]);
  });
});
