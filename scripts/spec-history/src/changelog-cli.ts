/**
 * npm run spec:changelog [-- --format json|markdown] [--output file] [--released-only]
 *
 * Writes the API's release history (see changelog.ts): as JSON, the data the docs site's Changelog
 * page reads (CI writes apps/docs/changelog.json before building the site); as Markdown, the same
 * entries the packages' CHANGELOG.md carry. Markdown links operations to `${DOCS_BASE_URL}/reference.html`.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildReleaseHistory, renderChangelogMarkdown } from './changelog.js';
import { repoRoot } from './sources.js';

const { values: args } = parseArgs({
  options: {
    output: { type: 'string' },
    format: { type: 'string', default: 'json' },
    spec: { type: 'string', default: 'spec/openapi.yaml' },
    'released-only': { type: 'boolean', default: false },
  },
});
if (args.format !== 'markdown' && args.format !== 'json') {
  console.error('--format must be json or markdown');
  process.exit(2);
}
if (args.format === 'markdown' && !process.env.DOCS_BASE_URL) {
  console.error('DOCS_BASE_URL is not set: the changelog links each operation to the published reference there');
  process.exit(2);
}
const history = await buildReleaseHistory(repoRoot(process.cwd()), { specPath: args.spec, releasedOnly: args['released-only'] });
const text = args.format === 'json' ? `${JSON.stringify(history, null, 2)}\n` : renderChangelogMarkdown(history, process.env.DOCS_BASE_URL!);
if (args.output) writeFileSync(resolve(process.cwd(), args.output), text);
else process.stdout.write(text);
console.error(`spec changelog: ${history.releases.length} releases${history.unreleased ? `, ${history.unreleased.changes.length} unreleased changes` : ''}`);
