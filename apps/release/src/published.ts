/**
 * The packages the project publishes to npm and where they live, read by the consumption test,
 * the version check and scripts/release (one list, not a copy per script).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Publish order: each package after the ones it depends on. */
export const publishedPackages = [
  { name: '@gateway-minds/contract', dir: 'packages/contract' },
  { name: '@gateway-minds/client', dir: 'packages/client' },
  { name: '@gateway-minds/cli', dir: 'packages/cli' },
  { name: '@gateway-minds/mcp', dir: 'packages/mcp' },
  { name: '@gateway-minds/msw', dir: 'packages/msw' },
] as const;

export interface PackageManifest {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  [key: string]: unknown;
}

export function readManifest(dir: string): PackageManifest {
  return JSON.parse(readFileSync(join(repoRoot, dir, 'package.json'), 'utf8')) as PackageManifest;
}

/** `info.version` of spec/openapi.yaml: the API version the packages speak. */
export function specVersion(): string {
  const document = parse(readFileSync(join(repoRoot, 'spec/openapi.yaml'), 'utf8')) as { info: { version: string } };
  return document.info.version;
}

/**
 * Sets every published package to `version` and pins their dependencies on each other to it
 * exactly: a client of API x.y.z installs the contract of x.y.z, never a newer one by `*`.
 */
export function writeVersions(version: string): void {
  const names = new Set<string>(publishedPackages.map((p) => p.name));
  for (const { dir } of publishedPackages) {
    const manifest = readManifest(dir);
    manifest.version = version;
    for (const dependency of Object.keys(manifest.dependencies ?? {})) if (names.has(dependency)) manifest.dependencies![dependency] = version;
    writeFileSync(join(repoRoot, dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  }
}

/** Rewrites `info.version` in spec/openapi.yaml in place (the line, so comments and layout stay). */
export function writeSpecVersion(version: string): void {
  const file = join(repoRoot, 'spec/openapi.yaml');
  const text = readFileSync(file, 'utf8');
  const updated = text.replace(/^(info:\n(?:[ \t].*\n)*?  version: ).*$/m, `$1${version}`);
  if (updated === text && specVersion() !== version) throw new Error('spec/openapi.yaml: no `  version:` line under `info:`');
  writeFileSync(file, updated);
}

/** Puts a release's entry at the top of each published package's CHANGELOG.md, once. */
export function prependChangelog(version: string, entry: string): void {
  for (const { name, dir } of publishedPackages) {
    const file = join(repoRoot, dir, 'CHANGELOG.md');
    const text = readFileSync(file, 'utf8');
    if (text.includes(`\n## ${version} `)) continue;
    const cut = text.indexOf('\n## ');
    const head = cut === -1 ? text.trimEnd() + '\n' : text.slice(0, cut + 1);
    const rest = cut === -1 ? '' : text.slice(cut + 1);
    writeFileSync(file, `${head}\n${entry.trimEnd()}\n\n${rest}`.replace(/\n{3,}/g, '\n\n'));
    void name;
  }
}
