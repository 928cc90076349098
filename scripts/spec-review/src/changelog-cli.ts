/**
 * npm run spec:changelog [-- --output CHANGELOG.md] [--format markdown|json] [--limit N]
 *
 * Writes the API's changelog from the git history of spec/ (see changelog.ts).
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildChangelog, renderChangelogMarkdown } from './changelog.js';
import { repoRoot } from './sources.js';

const { values: args } = parseArgs({
  options: {
    output: { type: 'string' },
    format: { type: 'string', default: 'markdown' },
    spec: { type: 'string', default: 'spec/openapi.yaml' },
    limit: { type: 'string' },
  },
});
if (args.format !== 'markdown' && args.format !== 'json') {
  console.error('--format must be markdown or json');
  process.exit(2);
}
const entries = await buildChangelog(repoRoot(process.cwd()), args.spec, args.limit ? Number(args.limit) : Infinity);
const text = args.format === 'json' ? `${JSON.stringify(entries, null, 2)}\n` : renderChangelogMarkdown(entries);
if (args.output) writeFileSync(resolve(process.cwd(), args.output), text);
else process.stdout.write(text);
console.error(`spec changelog: ${entries.length} versions, ${entries.reduce((n, e) => n + e.breaking.length, 0)} breaking changes`);
