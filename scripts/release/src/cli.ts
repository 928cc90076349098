/**
 * npm run release:version -- [--preview [--output file]] [--tag]
 * npm run release:cut              (the same with --tag)
 *
 * --preview  writes nothing: a Markdown section saying which version merging makes the next release
 *            (CI puts it into the pull request's spec review).
 * (default)  writes the next version into spec/openapi.yaml (`info.version`) and every published
 *            package, and each package's CHANGELOG.md from the release history, every operation linked
 *            to `${DOCS_BASE_URL}/reference.html` (required, and not a local address).
 * --tag      then commits those files ("release: vX.Y.Z") and tags the commit vX.Y.Z.
 * See release.ts for how the last release and the bump are found.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { publishedPackages, repoRoot } from './published.js';
import { cutRelease, planRelease, previewMarkdown } from './release.js';

async function main(): Promise<number> {
  const { values: args } = parseArgs({ options: { preview: { type: 'boolean', default: false }, output: { type: 'string' }, tag: { type: 'boolean', default: false } } });
  if (args.preview) {
    const markdown = previewMarkdown(await planRelease(repoRoot));
    if (args.output) writeFileSync(args.output, markdown);
    else process.stdout.write(markdown);
    return 0;
  }
  const version = await cutRelease(repoRoot, process.env.DOCS_BASE_URL, { tag: args.tag });
  if (!version) {
    console.log('release: no change to the API since the last release: nothing to release');
    return 0;
  }
  console.log(`release: ${version} written to spec/openapi.yaml, ${publishedPackages.map((p) => p.dir).join(', ')} and their CHANGELOG.md${args.tag ? `; committed and tagged v${version}` : ''}`);
  return 0;
}

// A spec that does not bundle, a missing DOCS_BASE_URL: the reason in one message, not a stack trace.
process.exitCode = await main().catch((error: Error) => {
  console.error(`release: ${error.message}`);
  return 2;
});
