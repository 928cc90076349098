/**
 * `npm run release:pack [-- --out <folder>]`: the published packages, from this checkout, as npm
 * tarballs in one folder (default scripts/release/dist/packs), and the one `npm install` line that
 * installs them together in another project. Together, because each pins the others at exactly its
 * own version (DECISIONS.md, "Which package version speaks which API version"): the client alone
 * would ask the registry for its contract, which is not there before the first release.
 *
 * It builds them first through turbo (`--no-build` when they are built already, as in the
 * outside-consumer test, which runs this very command), removes the folder's older tarballs of
 * these packages, and packs with `npm pack`. Nothing is published.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { publishedPackages, repoRoot } from './published.js';

export interface PackedPackage {
  name: string;
  version: string;
  /** The tarball's absolute path. */
  file: string;
}

export interface PackResult {
  folder: string;
  packages: PackedPackage[];
  /** The line to run in another project. */
  installCommand: string;
}

/** The environment without npm's npm_* variables (an `npm run` passes its own package's). */
function withoutNpmVariables(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
}

/** A path as a POSIX shell reads it back: quoted only when it must be. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/** A tarball of one of these packages, by the name npm pack gives it (`gateway-minds-client-0.2.2.tgz`). */
const tarballName = /^gateway-minds-[a-z-]+-\d+\.\d+\.\d+(?:-[\w.]+)?\.tgz$/;

export function packPublished(options: { folder: string; build: boolean }): PackResult {
  const folder = resolve(options.folder);
  const names = publishedPackages.map((p) => p.name);
  if (options.build) {
    execFileSync(join(repoRoot, 'node_modules/.bin/turbo'), ['run', 'build', ...names.map((name) => `--filter=${name}`), '--output-logs=errors-only'], { cwd: repoRoot, stdio: ['ignore', 'inherit', 'inherit'] });
  }
  mkdirSync(folder, { recursive: true });
  for (const file of readdirSync(folder)) if (tarballName.test(file)) rmSync(join(folder, file));
  const output = execFileSync('npm', ['pack', '--json', '--pack-destination', folder, ...names.flatMap((name) => ['-w', name])], {
    cwd: repoRoot,
    env: withoutNpmVariables(),
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const packed = JSON.parse(output) as { name: string; version: string; filename: string }[];
  const packages = packed.map((p) => ({ name: p.name, version: p.version, file: join(folder, p.filename) }));
  return { folder, packages, installCommand: `npm install ${packages.map((p) => shellWord(p.file)).join(' ')}` };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, 'no-build': { type: 'boolean', default: false } } });
  const result = packPublished({ folder: values.out ?? join(repoRoot, 'scripts/release/dist/packs'), build: !values['no-build'] });
  console.log(`Packed ${result.packages.length} packages into ${result.folder}:`);
  for (const p of result.packages) console.log(`  ${p.name}@${p.version}`);
  console.log('\nIn another project, install them together (their pins on each other resolve to these files):\n');
  console.log(result.installCommand);
}
