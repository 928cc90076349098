/**
 * Dependencies point down: a library under packages/ neither depends on nor imports anything under
 * apps/ (what runs) or scripts/ (the repository's tooling), an application nothing under scripts/,
 * and no relative import leaves its workspace (another workspace is reached through its exports).
 * And no module imports itself round a circle. dpdm reads every source, test and script file and
 * resolves its imports.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseCircular, parseDependencyTree, type DependencyTree } from 'dpdm';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { manifestOf, root, workspaceDirs } from './workspaces.js';

const workspaces = new Map(workspaceDirs.map((dir) => [manifestOf(dir), dir]));
const dirOf = new Map([...workspaces].map(([manifest, dir]) => [manifest.name as string, dir]));
/** packages/ (libraries) below apps/ (what runs) below scripts/ (the repository's tooling). */
const rank = (dir: string) => ['packages', 'apps', 'scripts'].indexOf(dir.split('/')[0]!);
const workspaceOf = (file: string) => file.split('/').slice(0, 2).join('/');

const tree = runtimeEdges(
  await parseDependencyTree(['{packages,apps,scripts}/*/{src,test,scripts,bin,fixture}/**/*.{ts,mts,js,mjs}', 'scripts/bench/**/*.ts'], {
    context: root,
    cwd: root,
    exclude: /node_modules|\/dist\/|\.test-results/,
  }),
);

/**
 * The tree as it runs: without the edges of `import type` and `export type ... from`, which are
 * erased before anything runs and so cannot make a circle at run time. Under verbatimModuleSyntax
 * (tsconfig.base.json) nothing else is: `import { type A } from './a.js'` compiles to
 * `import {} from './a.js'` and still loads it. dpdm's own `transform` drops that edge too, so it
 * would miss such a circle or upward import, and it transpiles every file to do so.
 */
function runtimeEdges(parsed: DependencyTree): DependencyTree {
  const erased = (file: string) => {
    const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest);
    const typeOnly = new Set<string>();
    const loaded = new Set<string>();
    for (const statement of source.statements) {
      const declaration = ts.isImportDeclaration(statement)
        ? { specifier: statement.moduleSpecifier, isTypeOnly: statement.importClause?.isTypeOnly === true }
        : ts.isExportDeclaration(statement) ? { specifier: statement.moduleSpecifier, isTypeOnly: statement.isTypeOnly } : undefined;
      if (!declaration?.specifier || !ts.isStringLiteral(declaration.specifier)) continue;
      (declaration.isTypeOnly ? typeOnly : loaded).add(declaration.specifier.text);
    }
    return new Set([...typeOnly].filter((request) => !loaded.has(request)));
  };
  return Object.fromEntries(
    Object.entries(parsed).map(([file, deps]) => {
      if (!deps || !/\.m?ts$/.test(file)) return [file, deps];
      // A declaration file never runs: whatever it imports, it loads nothing.
      if (/\.d\.m?ts$/.test(file)) return [file, []];
      const gone = erased(file);
      // Only declarations are erased: an `import()` or `require()` of the same module still loads it.
      // (dpdm does not export its enum of kinds.)
      const declared = (dep: { kind: unknown }) => dep.kind === 'StaticImport' || dep.kind === 'StaticExport';
      return [file, deps.filter((dep) => !(declared(dep) && gone.has(dep.request)))];
    }),
  );
}

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
