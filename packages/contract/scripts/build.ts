/**
 * Builds the contract package from spec/: the bundled document (JSON and YAML), TypeScript types (openapi-typescript), the error
 * catalog and the operation table. Everything here is derived; nothing in
 * src/generated or dist is edited by hand or committed.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle, loadConfig } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import { stringify } from 'yaml';
import { deriveAuthentication, deriveCredentialSchemes, deriveErrorCatalog, deriveGatewayLimits, deriveOperationTable, type OpenApiDocument } from './derive.js';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(packageDir, '../..');
const specEntry = join(repoRoot, 'spec/openapi.yaml');
const distDir = join(packageDir, 'dist');
const generatedDir = join(packageDir, 'src/generated');

const banner = '// Generated from spec/ by packages/contract/scripts/build.ts. Do not edit.\n';

async function bundleSpec(): Promise<OpenApiDocument> {
  const config = await loadConfig({ configPath: join(repoRoot, 'redocly.yaml') });
  const result = await bundle({ ref: specEntry, config });
  const errors = result.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) {
    const lines = errors.map((p) => `- ${p.message} (${p.location[0]?.source.absoluteRef ?? '?'}${p.location[0]?.pointer ?? ''})`);
    throw new Error(`spec/ does not bundle:\n${lines.join('\n')}`);
  }
  return result.bundle.parsed as OpenApiDocument;
}

const bundled = await bundleSpec();

// Start clean so an artifact whose source was removed cannot linger.
await rm(generatedDir, { recursive: true, force: true });
await rm(distDir, { recursive: true, force: true });
await mkdir(generatedDir, { recursive: true });
await mkdir(distDir, { recursive: true });

await writeFile(join(distDir, 'openapi.json'), `${JSON.stringify(bundled, null, 2)}\n`);
await writeFile(join(distDir, 'openapi.yaml'), stringify(bundled, { aliasDuplicateObjects: false }));

// The document travels inside the package as a module too, so that consumers
// (servers, CLI, MCP) load it without touching the file system.
await writeFile(
  join(generatedDir, 'document.ts'),
  `${banner}import type { OpenApiDocument } from '../document-types.js';\n\n` +
    `const document: unknown = ${JSON.stringify(bundled)};\n\n` +
    `export const openapiDocument = document as OpenApiDocument;\n`,
);

// defaultNonNullable: false, or a request property with a default (plan, limit)
// would be typed as required although callers may omit it.
const typesAst = await openapiTS(bundled as never, { alphabetize: false, exportType: false, defaultNonNullable: false });
await writeFile(join(generatedDir, 'schema.ts'), banner + astToString(typesAst));

const catalog = deriveErrorCatalog(bundled);
await writeFile(
  join(generatedDir, 'error-catalog.ts'),
  `${banner}import type { ErrorCatalogFacts } from '../error-types.js';\n\n` +
    `export const errorCatalog = ${JSON.stringify(catalog, null, 2)} as const satisfies Record<string, ErrorCatalogFacts>;\n`,
);

const operations = deriveOperationTable(bundled);
await writeFile(
  join(generatedDir, 'operation-table.ts'),
  `${banner}import type { OperationFacts } from '../operation-types.js';\n\n` +
    `export const operationTable = ${JSON.stringify(operations, null, 2)} as const satisfies Record<string, OperationFacts>;\n`,
);

await writeFile(
  join(generatedDir, 'gateway-limits.ts'),
  `${banner}export const gatewayLimits = ${JSON.stringify(deriveGatewayLimits(bundled), null, 2)} as const;\n`,
);

await writeFile(
  join(generatedDir, 'authentication.ts'),
  `${banner}export const authentication = ${JSON.stringify(deriveAuthentication(bundled), null, 2)} as const;\n`,
);

const credentialSchemes = deriveCredentialSchemes(bundled);
await writeFile(
  join(generatedDir, 'credential-schemes.ts'),
  `${banner}export const credentialSchemes = ${JSON.stringify(credentialSchemes, null, 2)} as const;\n`,
);

console.log(
  `contract: ${Object.keys(operations).length} operations, ${Object.keys(catalog).length} error codes -> ${distDir}`,
);
