/**
 * Build step, from the contract: src/generated/handlers.ts, one openapi-msw
 * handler per operation of the operation table, whose answers are the spec's
 * named response examples written out as literals inside typed
 * `response(<status>).json(...)` calls. So `tsc` checks every example against
 * the `paths` types openapi-typescript generated from the same spec, and a
 * spec change that leaves an example behind fails the build. Also writes the
 * selection table (per operation: its examples' status and name, whether it
 * needs a credential, which success example is a last page) that
 * src/selection.ts reads at run time.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dereference, operationParameters, operationTable, type JsonSchema, type OpenApiResponse, type OperationFacts } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';

const generated = join(dirname(fileURLToPath(import.meta.url)), '../src/generated');
const document = dereference(openapiDocument);

/** A declared response header's value for a mocked answer: the spec's example, else its lower bound; undefined when it has neither and is optional. */
function headerValue(header: { required?: boolean; schema?: JsonSchema; example?: unknown }): string | undefined {
  const schema = header.schema ?? {};
  // The header object's own example first, as Prism takes it (WWW-Authenticate declares one there).
  const candidates = [header.example, (schema.examples as unknown[] | undefined)?.[0], schema.example, schema.default, schema.const, (schema.enum as unknown[] | undefined)?.[0]];
  const value = candidates.find((c) => c !== undefined);
  if (value !== undefined) return String(value);
  if (header.required && (schema.type === 'integer' || schema.type === 'number')) return String(schema.minimum ?? 1);
  if (header.required) throw new Error(`a required response header has no example to mock with: ${JSON.stringify(header)}`);
  return undefined;
}

/** Headers for one example: every declared header with a value; X-Request-Id repeats an error body's request_id, as the servers do. */
function headersFor(response: OpenApiResponse, body: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    const value = headerValue(header as { required?: boolean; schema?: JsonSchema });
    if (value !== undefined) headers[name] = value;
  }
  const requestId = (body as { error?: { request_id?: unknown } } | undefined)?.error?.request_id;
  if (typeof requestId === 'string' && 'X-Request-Id' in headers) headers['X-Request-Id'] = requestId;
  return headers;
}

/**
 * An error example's `docs_url` (`<the spec's docs site>/errors.html#<CODE>`) as a call of the handlers'
 * `docsUrl`, so that a team's docs site replaces the spec's (createHandlers' `docsBaseUrl`).
 */
function withDocsUrls(json: string): string {
  return json.replace(/"docs_url":"[^"]*\/errors\.html#([A-Z0-9_]+)"/g, (_match, code: string) => `"docs_url":docsUrl(${JSON.stringify(code)})`);
}

interface ExampleEntry {
  status: number;
  name: string;
  /** The typed call that answers it, e.g. response(200).json({...}, { headers }). */
  call: string;
  lastPage: boolean;
}

const table: Record<string, unknown> = {};
const handlerSources: string[] = [];
/** Per operation: what a request must be (its parameters' and body's schemas), for the opt-in request validation. */
const requestContract: Record<string, unknown> = {};

for (const facts of Object.values(operationTable) as OperationFacts[]) {
  const operation = document.paths[facts.path]?.[facts.method];
  if (!operation) throw new Error(`${facts.operationId} is not at ${facts.method} ${facts.path}`);
  const entries: ExampleEntry[] = [];
  for (const [statusKey, response] of Object.entries(operation.responses)) {
    const status = Number(statusKey);
    if (!Number.isInteger(status)) throw new Error(`${facts.operationId}: response ${statusKey} is not a status code`);
    const content = response.content ?? {};
    const media = content['application/json'];
    const others = Object.keys(content).filter((type) => type !== 'application/json');
    if (others.length > 0) throw new Error(`${facts.operationId} ${status}: only application/json answers are mocked, not ${others.join(', ')}`);
    if (!media) {
      // No body (204): one selectable answer, named after its status.
      entries.push({ status, name: String(status), call: `response(${status}).empty({ headers: ${JSON.stringify(headersFor(response, undefined))} })`, lastPage: false });
      continue;
    }
    for (const [name, example] of Object.entries(media.examples ?? {})) {
      const body = example.value;
      const call = `response(${status}).json(${withDocsUrls(JSON.stringify(body))}, { headers: ${JSON.stringify(headersFor(response, body))} })`;
      const lastPage = status === facts.successStatus && (body as { next_cursor?: unknown } | null)?.next_cursor === null;
      entries.push({ status, name, call, lastPage });
    }
  }
  if (!entries.some((e) => e.status === facts.successStatus)) throw new Error(`${facts.operationId}: no named example of its success status ${facts.successStatus}`);
  const paginated = facts.parameters.some((p) => p.in === 'query' && p.name === 'after');
  const lastPage = entries.findIndex((e) => e.lastPage);
  if (paginated && lastPage < 0) throw new Error(`${facts.operationId}: paginated, but no success example is a last page (next_cursor: null)`);
  table[facts.operationId] = {
    successStatus: facts.successStatus,
    credential: facts.security.length > 0,
    lastPage: paginated ? lastPage : null,
    examples: entries.map((e) => [e.status, e.name]),
  };
  const item = document.paths[facts.path]!;
  requestContract[facts.operationId] = {
    parameters: operationParameters(item, operation)
      .filter((p) => p.in === 'path' || p.in === 'query' || p.in === 'header')
      .map((p) => ({ name: p.name, in: p.in, required: p.required ?? false, schema: p.schema ?? {}, missingCode: p['x-missing-code'] ?? null })),
    body: operation.requestBody?.content?.['application/json']?.schema ?? null,
  };
  const cases = entries.map((e, index) => `        case ${index}:\n          return ${e.call};`).join('\n');
  handlerSources.push(`    http.${facts.method}(${JSON.stringify(facts.path)}, async ({ request, params, response }) => {
      const refused = await refuse(request, ${JSON.stringify(facts.operationId)}, params);
      if (refused) return refused as never;
      const index = select(request, ${JSON.stringify(facts.operationId)});
      switch (index) {
${cases}
      }
      throw new Error(\`${facts.operationId}: no example at index \${index}\`);
    }),`);
}

mkdirSync(generated, { recursive: true });
writeFileSync(
  join(generated, 'handlers.ts'),
  `// Generated from the contract by packages/msw/scripts/generate.ts. Do not edit.
import type { paths } from '@gateway-minds/contract';
import type { HttpHandler } from 'msw';
import type { OpenApiHttpHandlers } from 'openapi-msw';
import type { OperationExamples } from '../selection.js';

/** Per operation id: its success status, whether it needs a credential, which example is a list's last page, and its examples as [status, name], in spec order. */
export const exampleTable = ${JSON.stringify(table, null, 2)} as const satisfies Record<string, OperationExamples>;

/**
 * One handler per operation; \`refuse\` answers a request the contract refuses (or resolves to
 * undefined), \`select\` picks the index of the example to answer the others with.
 */
export function generatedHandlers(
  http: OpenApiHttpHandlers<paths>,
  select: (request: Request, operationId: keyof typeof exampleTable) => number,
  refuse: (request: Request, operationId: keyof typeof exampleTable, params: Record<string, string | readonly string[] | undefined>) => Promise<Response | undefined>,
  docsUrl: (code: string) => string,
): HttpHandler[] {
  return [
${handlerSources.join('\n')}
  ];
}
`,
);
/** The docs site the spec's error examples link to (`<base>/errors.html#<CODE>`): refusals link there too. */
const docsBases = new Set<string>();
JSON.stringify(document, (key, value: unknown) => {
  if (key === 'docs_url' && typeof value === 'string') docsBases.add(value.replace(/\/errors\.html#[A-Z0-9_]+$/, ''));
  return value;
});
if (docsBases.size !== 1) throw new Error(`the spec's error examples name ${docsBases.size} docs sites, not one: ${[...docsBases].join(', ')}`);
const [exampleDocsBaseUrl] = docsBases;

writeFileSync(
  join(generated, 'request-contract.ts'),
  `// Generated from the contract by packages/msw/scripts/generate.ts. Do not edit.
import type { RequestContract } from '../request-validation.js';

/** Per operation id: its parameters (path-level ones merged) and its JSON body's schema, dereferenced; read only when requests are validated. */
export const requestContract: Record<string, RequestContract> = ${JSON.stringify(requestContract)};

/** The docs site the spec's error examples link to. */
export const exampleDocsBaseUrl = ${JSON.stringify(exampleDocsBaseUrl)};

/** Where every docs_url points unless createHandlers is told otherwise: DOCS_BASE_URL at build time (the published docs site, for the published package), else the spec's. */
export const defaultDocsBaseUrl = ${JSON.stringify(process.env.DOCS_BASE_URL ? process.env.DOCS_BASE_URL.replace(/\/+$/, '') : exampleDocsBaseUrl)};
`,
);
console.log(`msw: ${handlerSources.length} handlers generated`);
