/**
 * Loads one OpenAPI 3.0 or 3.1 document, YAML or JSON, from a file or a URL, with its external
 * `$ref`s (other files, other URLs) inlined by @redocly/openapi-core's bundler, the same bundling
 * every comparison expects (component `$ref`s kept).
 */
import { resolve as resolvePath } from 'node:path';
import { bundle, createConfig } from '@redocly/openapi-core';

export interface LoadedDocument {
  document: object;
  /** The root file on disk, for placing changes on its lines; undefined for a URL. */
  file?: string;
}

const isUrl = (source: string) => /^https?:\/\//i.test(source);

export async function loadDocument(source: string): Promise<LoadedDocument> {
  const ref = isUrl(source) ? source : resolvePath(source);
  const result = await bundle({ ref, config: await createConfig({}) });
  const errors = result.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) throw new Error(`${source} does not bundle:\n${errors.map((p) => `- ${p.message} (${p.location[0]?.source.absoluteRef ?? '?'}${p.location[0]?.pointer ?? ''})`).join('\n')}`);
  const document = result.bundle.parsed as { openapi?: unknown } | null;
  if (!document || typeof document.openapi !== 'string' || !/^3\.[01]\./.test(document.openapi)) {
    throw new Error(`${source} is not an OpenAPI 3.0 or 3.1 document (openapi: ${JSON.stringify(document?.openapi ?? null)})`);
  }
  return { document, ...(isUrl(source) ? {} : { file: ref }) };
}
