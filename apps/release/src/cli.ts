/**
 * npm run release:version -- --base <git ref> [--check] [--docs-url <url>]
 *
 * Reviews spec/ at the base ref (the last release) against the working tree with the spec review's
 * compare, and derives the version the API and every published package must carry: breaking →
 * major, additive → minor, fix → patch. Without --check it writes that version into
 * spec/openapi.yaml (`info.version`) and the packages, and puts the release's entry, operations
 * linked to the reference, at the top of each package's CHANGELOG.md. With --check (CI) it writes
 * nothing and exits 1 when the versions are not the ones the rule asks for.
 */
import { parseArgs } from 'node:util';
import { compareSpecs } from '@gateway-minds/spec-review';
import { bundleSpec, extractAt, resolveCommit } from '@gateway-minds/spec-review-cli/src/sources.js';
import { rmSync } from 'node:fs';
import { bumpFor, changelogEntry, nextVersion } from './bump.js';
import { prependChangelog, publishedPackages, readManifest, repoRoot, specVersion, writeSpecVersion, writeVersions } from './published.js';

type Bundled = { info: { version: string }; servers?: { url: string }[] };

/** The bundle without `info.version`, to tell whether anything but the version changed. */
function withoutVersion(document: Bundled): string {
  return JSON.stringify({ ...document, info: { ...document.info, version: undefined } });
}

async function main(): Promise<number> {
  const { values: args } = parseArgs({
    options: { base: { type: 'string' }, check: { type: 'boolean', default: false }, 'docs-url': { type: 'string' } },
  });
  if (!args.base) {
    console.error('usage: npm run release:version -- --base <git ref> [--check] [--docs-url <url>]');
    return 2;
  }
  const baseRoot = extractAt(repoRoot, resolveCommit(repoRoot, args.base), 'spec');
  try {
    const [base, head] = (await Promise.all([bundleSpec(baseRoot, 'spec/openapi.yaml'), bundleSpec(repoRoot, 'spec/openapi.yaml')])) as [Bundled, Bundled];
    const review = compareSpecs(base, head);
    const bump = bumpFor(review, withoutVersion(base) !== withoutVersion(head));
    const expected = bump ? nextVersion(base.info.version, bump) : base.info.version;
    const packageVersions = publishedPackages.map((p) => `${p.name}@${readManifest(p.dir).version}`);
    console.log(`spec review: ${bump ?? 'no change'} (${base.info.version} → ${expected})`);

    if (args.check) {
      const wrong = [`info.version ${specVersion()}`, ...packageVersions].filter((v) => !v.endsWith(` ${expected}`) && !v.endsWith(`@${expected}`));
      if (wrong.length) {
        console.error(`the spec review asks for ${expected}; found ${wrong.join(', ')}. Run npm run release:version -- --base ${args.base}`);
        return 1;
      }
      return 0;
    }
    if (!bump) return 0;
    const docsUrl = args['docs-url'] ?? `${head.servers?.[0]?.url ?? ''}/docs`;
    writeSpecVersion(expected);
    writeVersions(expected);
    prependChangelog(expected, changelogEntry(expected, bump, review, docsUrl, new Date().toISOString().slice(0, 10)));
    console.log(`wrote ${expected} to spec/openapi.yaml, ${publishedPackages.map((p) => p.dir).join(', ')} and their CHANGELOG.md`);
    return 0;
  } finally {
    rmSync(baseRoot, { recursive: true, force: true });
  }
}

// A spec that does not bundle, or a ref git does not know: the reason in one message, not a stack trace.
process.exitCode = await main().catch((error: Error) => {
  console.error(`release:version: ${error.message}`);
  return 2;
});
