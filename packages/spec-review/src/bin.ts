/**
 * spec-review <base> <head>: compares two OpenAPI 3.0 or 3.1 documents (files or URLs, YAML or JSON,
 * split across files through `$ref`) and reports every change with its check id and level, as
 * Markdown, JSON or GitHub workflow annotations. Exits 1 when there is a breaking change (or, with
 * --fail-on warning, a warning), 2 on a usage error or a document that does not load.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { compareSpecs, type Severity } from './compare.js';
import { createLocator, renderAnnotations, renderJson, type Locator } from './formats.js';
import { loadDocument } from './load.js';
import { generatedClientLevels, isRegistered } from './registry.js';
import { renderMarkdown } from './report.js';

const usage = `usage: spec-review <base> <head> [options]

  <base>, <head>    OpenAPI 3.0 or 3.1 documents: files or http(s) URLs, YAML or JSON
  --format          markdown (default), json (every change with its id, level, operations,
                    file, line and JSON pointer) or github (workflow annotations)
  --output <file>   write the report there instead of to stdout
  --level <id>=<level>
                    re-level a check (levels: breaking, warning, info); repeatable
  --generated-clients
                    judge as for generated clients: an operationId rename, a removed schema
                    name and a narrowed security requirement are breaking
  --fail-on         breaking (default), warning or none: when to exit 1
  --accept-breaking breaking changes are acknowledged (annotations become warnings; exit 0)`;

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        format: { type: 'string', default: 'markdown' },
        output: { type: 'string' },
        level: { type: 'string', multiple: true, default: [] },
        'generated-clients': { type: 'boolean', default: false },
        'fail-on': { type: 'string', default: 'breaking' },
        'accept-breaking': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  const { values: args, positionals } = parsed;
  if (args.help) {
    console.log(usage);
    return 0;
  }
  if (positionals.length !== 2) {
    console.error(`two documents are needed, base and head\n\n${usage}`);
    return 2;
  }
  if (!['markdown', 'json', 'github'].includes(args.format!) || !['breaking', 'warning', 'none'].includes(args['fail-on']!)) {
    console.error(`--format takes markdown, json or github; --fail-on takes breaking, warning or none\n\n${usage}`);
    return 2;
  }
  const levels: Record<string, Severity> = args['generated-clients'] ? { ...generatedClientLevels } : {};
  for (const setting of args.level ?? []) {
    const match = /^([a-z0-9-]+)=(breaking|warning|info)$/.exec(setting);
    if (!match || !isRegistered(match[1]!)) {
      console.error(`--level takes <registered check id>=breaking|warning|info, not ${setting}\n\n${usage}`);
      return 2;
    }
    levels[match[1]!] = match[2] as Severity;
  }
  const [baseSource, headSource] = positionals as [string, string];
  let base, head;
  try {
    [base, head] = await Promise.all([loadDocument(baseSource), loadDocument(headSource)]);
  } catch (error) {
    console.error(`spec-review: ${(error as Error).message}`);
    return 2;
  }
  const started = performance.now();
  const review = compareSpecs(base.document, head.document, { levels });
  const elapsed = performance.now() - started;
  const locate: Locator | undefined = head.file ? createLocator(head.file, process.cwd(), { base: base.document }) : undefined;
  const acknowledged = args['accept-breaking'] === true;
  const report =
    args.format === 'json'
      ? renderJson(review, { ...(locate ? { locate } : {}), context: { base: baseSource, head: headSource } })
      : args.format === 'github'
        ? renderAnnotations(review, locate ?? (() => undefined), head.file ? headSource : headSource, { acknowledged })
        : renderMarkdown(review, { base: baseSource, head: headSource, acknowledged, ...(locate ? { locate } : {}) });
  if (args.output) writeFileSync(args.output, report);
  else process.stdout.write(report);
  const warnings = review.changed.some((o) => o.severity === 'warning') || review.sharedSchemas.some((s) => s.changes.some((c) => c.severity === 'warning')) || review.document.some((c) => c.severity === 'warning');
  console.error(`spec-review: ${review.added.length} added, ${review.removed.length} removed, ${review.changed.length} changed, ${review.breaking.length} breaking (compared in ${elapsed.toFixed(0)} ms)`);
  if (args['fail-on'] === 'none') return 0;
  if (review.breaking.length > 0 && !acknowledged) return 1;
  return args['fail-on'] === 'warning' && warnings ? 1 : 0;
}
