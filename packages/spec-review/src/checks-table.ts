/** The README's check table, generated from the registry (`npm run readme`; test/readme.test.ts fails when the README drifts). */
import { registry, type CheckFamily } from './registry.js';

const families: Record<CheckFamily, string> = {
  'schema-types': 'Schemas: types, nullability, enumerations (checks/schema-types.ts)',
  'schema-constraints': 'Schemas: bounds, patterns, formats, defaults (checks/schema-constraints.ts)',
  'schema-objects': 'Schemas: properties (checks/schema-objects.ts)',
  'schema-composition': 'Schemas: subschemas and alternatives (checks/schema-composition.ts)',
  'schema-annotations': 'Schemas: prose, examples, lifecycle (checks/schema-annotations.ts)',
  parameters: 'Parameters (checks/parameters.ts)',
  'request-body': 'Request bodies (checks/request-body.ts)',
  responses: 'Responses (checks/responses.ts)',
  operations: 'Operations: added, removed, renamed, moved, prose (compare.ts, checks/lifecycle.ts)',
  lifecycle: 'Lifecycle: deprecation, sunset, stability (checks/lifecycle.ts)',
  security: 'Security (checks/security.ts)',
  extensions: "This repository's operation extensions (checks/extensions.ts)",
  document: 'The document (checks/document.ts)',
  'error-catalog': "This repository's error catalog (checks/error-catalog.ts)",
};

export const tableStart = '<!-- checks table: generated from src/registry.ts by `npm run readme`; do not edit -->';
export const tableEnd = '<!-- end of checks table -->';

export function renderChecksTable(): string {
  const lines = [tableStart, ''];
  for (const [family, title] of Object.entries(families)) {
    const checks = registry.filter((c) => c.family === family);
    if (checks.length === 0) continue;
    lines.push(`#### ${title}`, '', '| Id | Level | Direction | What | Follows oasdiff |', '|---|---|---|---|---|');
    for (const c of checks) lines.push(`| \`${c.id}\` | ${c.level} | ${c.direction} | ${c.description.replace(/\|/g, '\\|')} | ${c.follows.map((f) => `\`${f}\``).join(', ')} |`);
    lines.push('');
  }
  lines.push(tableEnd);
  return lines.join('\n');
}

/** The README with its table section replaced by the generated one. */
export function withChecksTable(readme: string): string {
  const start = readme.indexOf(tableStart);
  const end = readme.indexOf(tableEnd);
  if (start < 0 || end < 0) throw new Error(`README has no checks table markers (${tableStart} … ${tableEnd})`);
  return `${readme.slice(0, start)}${renderChecksTable()}${readme.slice(end + tableEnd.length)}`;
}
