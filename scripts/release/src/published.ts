/**
 * The packages the project publishes to npm and where they live, read by the consumption test, the
 * release and the publish (one list, not a copy per script); and the files a release writes:
 * `info.version`, each package's version and pins, each package's CHANGELOG.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { renderReleaseEntry, type ReleaseHistory } from '@gateway-minds/spec-history/changelog';

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

export function readManifest(dir: string, root = repoRoot): PackageManifest {
  return JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as PackageManifest;
}

/** `info.version` of spec/openapi.yaml: the API version the packages speak. */
export function specVersion(root = repoRoot): string {
  const document = parse(readFileSync(join(root, 'spec/openapi.yaml'), 'utf8')) as { info: { version: string } };
  return document.info.version;
}

/**
 * Sets every published package to `version` and pins their dependencies on each other to it
 * exactly: a client of API x.y.z installs the contract of x.y.z, never a newer one by `*`.
 */
export function writeVersions(version: string, root = repoRoot): void {
  const names = new Set<string>(publishedPackages.map((p) => p.name));
  for (const { dir } of publishedPackages) {
    const manifest = readManifest(dir, root);
    manifest.version = version;
    for (const dependency of Object.keys(manifest.dependencies ?? {})) if (names.has(dependency)) manifest.dependencies![dependency] = version;
    writeFileSync(join(root, dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  }
}

/** Rewrites `info.version` in spec/openapi.yaml in place (the line, so comments and layout stay). */
export function writeSpecVersion(version: string, root = repoRoot): void {
  const file = join(root, 'spec/openapi.yaml');
  const text = readFileSync(file, 'utf8');
  const updated = text.replace(/^(info:\n(?:[ \t].*\n)*?  version: ).*$/m, `$1${version}`);
  if (updated === text && specVersion(root) !== version) throw new Error('spec/openapi.yaml: no `  version:` line under `info:`');
  writeFileSync(file, updated);
}

/**
 * Writes each published package's CHANGELOG.md from the release history: its header (the text
 * before the first `## `) kept, then every release newest first, down to the package's first one
 * (the oldest version the file had), whose entry, the package's own introduction, is kept as written.
 * Every other entry is the history's, so the file and the docs site's Changelog page say the same.
 */
export function writeChangelogs(history: ReleaseHistory, docsBaseUrl: string, root = repoRoot): void {
  for (const { dir } of publishedPackages) {
    const file = join(root, dir, 'CHANGELOG.md');
    const text = readFileSync(file, 'utf8');
    const cut = text.search(/^## /m);
    const header = (cut < 0 ? text : text.slice(0, cut)).trimEnd();
    const sections = cut < 0 ? [] : text.slice(cut).split(/^(?=## )/m);
    const versionOf = (section: string) => /^## (\d+\.\d+\.\d+)/.exec(section)?.[1];
    const first = sections.map(versionOf).filter((v): v is string => v !== undefined).at(-1);
    const firstSection = sections.find((s) => versionOf(s) === first);
    const entries: string[] = [];
    for (const release of history.releases) {
      if (release.version === first && firstSection) {
        entries.push(firstSection.trimEnd());
        break;
      }
      entries.push(renderReleaseEntry(release, docsBaseUrl).trimEnd());
    }
    writeFileSync(file, `${header}\n\n${entries.join('\n\n')}\n`);
  }
}

/** A published docs address: set, and not this machine (links in a published changelog are read everywhere). */
export function publishedDocsUrl(value: string | undefined): string {
  if (!value) throw new Error('DOCS_BASE_URL is not set: the changelog links each operation to the published reference (the release workflow sets it to the Pages URL)');
  const { hostname, protocol } = new URL(value);
  if (!/^https?:$/.test(protocol) || /^(localhost|127\.|0\.0\.0\.0|\[::1\])/.test(hostname)) throw new Error(`DOCS_BASE_URL ${value} is not a published address: the changelog ships in the packages`);
  return value.replace(/\/+$/, '');
}

/** Published packages whose CHANGELOG.md links to this machine (written before links took DOCS_BASE_URL): a release rewrites them. */
export function localChangelogLinks(root = repoRoot): string[] {
  return publishedPackages.filter(({ dir }) => /https?:\/\/(localhost|127\.0\.0\.1)[:/]/.test(readFileSync(join(root, dir, 'CHANGELOG.md'), 'utf8'))).map((p) => p.name);
}
