/**
 * npm run release:publish -- [--dry-run]
 *
 * Publishes the contract, client, CLI, MCP and MSW packages (built) in dependency order, each with
 * `npm publish --provenance`, skipping a version the registry already has. The release workflow runs
 * it right after a release is cut; CI runs it with --dry-run (no token, nothing leaves the machine, no
 * provenance: npm makes provenance only on a real publish from a CI provider).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { localChangelogLinks, publishedPackages, readManifest, repoRoot } from './published.js';

function published(name: string, version: string): boolean {
  try {
    return execFileSync('npm', ['view', `${name}@${version}`, 'version'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() === version;
  } catch {
    return false; // E404: the package or this version is not on the registry yet
  }
}

const { values: args } = parseArgs({ options: { 'dry-run': { type: 'boolean', default: false } } });
// A changelog read on npm must not send readers to this machine: a release (release:cut) rewrites every entry with DOCS_BASE_URL.
const local = localChangelogLinks();
if (local.length) {
  const message = `${local.join(', ')}: CHANGELOG.md links to a local address; cut a release (npm run release:cut with DOCS_BASE_URL set) before publishing`;
  if (!args['dry-run']) {
    console.error(message);
    process.exit(1);
  }
  console.warn(`warning: ${message}`);
}
for (const { name, dir } of publishedPackages) {
  const { version } = readManifest(dir);
  if (!args['dry-run'] && published(name, version)) {
    console.log(`${name}@${version} is on the registry already: skipped`);
    continue;
  }
  const flags = args['dry-run'] ? ['--dry-run'] : ['--provenance'];
  console.log(`npm publish ${flags.join(' ')} -w ${name} (${version})`);
  const result = spawnSync('npm', ['publish', ...flags, '--access', 'public', '-w', name], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'notice' } });
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  if (result.status !== 0) process.exit(result.status ?? 1);
  // npm "auto-corrects" a manifest at publish (it dropped `./dist/bin.js` bins once): what it would
  // publish is then not what was packed and tested, so the dry run fails on it.
  if (/auto-corrected/.test(result.stderr)) {
    console.error(`${name}: npm would publish a corrected package.json; run npm pkg fix -w ${name}`);
    process.exit(1);
  }
}
