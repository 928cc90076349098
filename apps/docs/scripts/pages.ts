/**
 * The site's own pages (getting started, error catalog), written from the
 * contract: every operation id, path, error code and fact comes from
 * @gateway-minds/contract, nothing is typed here again.
 */
import {
  credentialSchemes,
  errorCatalog,
  errorCodes,
  followRefs,
  operationIds,
  operationTable,
  type ErrorCode,
  type OpenApiDocument,
  type OperationId,
} from '@gateway-minds/contract';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Escapes, then renders `code` spans (the only markup catalog and summary text uses). */
function inline(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

export interface SiteContext {
  document: OpenApiDocument;
  siteTitle: string;
  csp: string;
  /**
   * The spec's `servers`, which the getting-started page's local instructions name: [0] is the local
   * stack, [1] the mock (their descriptions say so). Not the servers the reference lists (site.ts).
   */
  servers: { url: string; description: string }[];
}

export function referenceAnchor(operationId: string): string {
  return `reference.html#operation/${operationId}`;
}

/** The site's pages as its navigation names them (the search labels its results with these names too). */
export const sitePages = [
  ['index.html', 'Getting started'],
  ['reference.html', 'API reference'],
  ['errors.html', 'Error catalog'],
  ['changelog.html', 'Changelog'],
  ['openapi.json', 'openapi.json'],
] as const;

/**
 * The site's navigation links, the current page marked, and the search over every page
 * (scripts/browser/search.ts fills its results): every page, the reference (its template) included,
 * shows the same.
 */
export function siteNav(currentFile: string): string {
  const links = sitePages.map(([href, label]) => `<a href="${href}"${href === currentFile ? ' aria-current="page"' : ''}>${label}</a>`);
  return [...links, siteSearch].join('\n    ');
}

/** The search box in the navigation; search.js (loaded by every page) answers it from search-index.json. */
export const siteSearch = `<div class="gm-search" role="search"><input type="search" placeholder="Search the docs" aria-label="Search every page: operations, error codes, changelog" autocomplete="off" spellcheck="false"><ol class="gm-search-results" hidden></ol></div>`;

/** What every page's stylesheet adds for the search box (the reference, whose styles are its own, inlines the same). */
export const searchStyles = `.gm-search { position: relative; }
.gm-search input { width: 15rem; padding: .2rem .5rem; border: 1px solid #52606d; border-radius: 4px; background: #323f4b; color: #fff; font: inherit; }
.gm-search input::placeholder { color: #9aa5b1; }
.gm-search-results { position: absolute; right: 0; top: 2rem; z-index: 10; width: 30rem; max-height: 70vh; overflow-y: auto; margin: 0; padding: .25rem 0; list-style: none; background: #fff; color: #1f2933; border: 1px solid #d9dee3; border-radius: 6px; box-shadow: 0 4px 16px rgba(0,0,0,.15); }
.gm-search-results li a { display: block; padding: .35rem .75rem; color: #1f2933; text-decoration: none; }
.gm-search-results li a:hover, .gm-search-results li a:focus, .gm-search-results li[aria-selected="true"] a { background: #e8f0fb; }
.gm-search-results .gm-search-section { display: inline-block; min-width: 6.5rem; color: #616e7c; font-size: 12px; }
.gm-search-results small { display: block; color: #616e7c; font-size: 12px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.gm-search-results .gm-search-none { padding: .35rem .75rem; color: #616e7c; }`;

function layout(ctx: SiteContext, page: { file: string; title: string; body: string }): string {
  const nav = siteNav(page.file);
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta http-equiv="Content-Security-Policy" content="${escapeHtml(ctx.csp)}">
  <title>${escapeHtml(page.title)} · ${escapeHtml(ctx.siteTitle)}</title>
  <link rel="icon" href="favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="style.css">
  <script src="search.js" defer></script>
</head>
<body>
  <nav class="gm-nav" aria-label="Site">
    <strong>${escapeHtml(ctx.siteTitle)}</strong>
    ${nav}
  </nav>
  <main>
${page.body}
  </main>
</body>
</html>
`;
}

/** For each code, the operations whose error responses carry an example of it (from the spec's named examples). */
export function operationsByErrorCode(document: OpenApiDocument): Map<ErrorCode, OperationId[]> {
  const byCode = new Map<ErrorCode, OperationId[]>();
  for (const id of operationIds) {
    const facts = operationTable[id];
    const operation = document.paths[facts.path]?.[facts.method];
    if (!operation) throw new Error(`operation ${id} is not at ${facts.method} ${facts.path} in the bundled document`);
    for (const [status, responseOrRef] of Object.entries(operation.responses)) {
      if (Number(status) < 400) continue;
      const response = followRefs(document, responseOrRef);
      for (const exampleOrRef of Object.values(response.content?.['application/json']?.examples ?? {})) {
        const example = followRefs(document, exampleOrRef);
        const code = (example.value as { error?: { code?: ErrorCode } } | undefined)?.error?.code;
        if (!code) continue;
        const list = byCode.get(code) ?? [];
        if (!list.includes(id)) list.push(id);
        byCode.set(code, list);
      }
    }
  }
  return byCode;
}

/** An identifier that may wrap after its underscores (`CREATION_<wbr>CONTEXT_<wbr>…`), so a long one does not widen the page. */
function wrappable(identifier: string): string {
  return escapeHtml(identifier).replace(/_/g, '_<wbr>');
}

/** A code's catalog reasons (x-reasons) under its meaning, each with what it means. */
function reasonList(reasons: Readonly<Record<string, string>>): string {
  const entries = Object.entries(reasons);
  if (entries.length === 0) return '';
  const items = entries.map(([reason, meaning]) => `<li><code>${wrappable(reason)}</code>: ${inline(meaning)}</li>`).join('');
  return `<ul class="reasons">${items}</ul>`;
}

export function errorsPage(ctx: SiteContext): string {
  const byCode = operationsByErrorCode(ctx.document);
  const statuses = [...new Set(errorCodes.map((code) => errorCatalog[code].status))].sort((a, b) => a - b);
  const rows = errorCodes
    .map((code) => {
      const facts = errorCatalog[code];
      const operations = byCode.get(code) ?? [];
      const links = operations.map((id) => `<a href="${referenceAnchor(id)}"><code>${wrappable(id)}</code></a>`).join(' ');
      const returnedBy =
        operations.length === 0
          ? '<span class="muted">not listed on an operation</span>'
          : operations.length <= 2
            ? links
            : `<details><summary>${operations.length} operations</summary>${links}</details>`;
      return `      <tr id="${code}" data-status="${facts.status}">
        <th scope="row"><a class="anchor" href="#${code}"><code>${wrappable(code)}</code></a></th>
        <td>${facts.status}</td>
        <td><code>${wrappable(facts.type)}</code></td>
        <td>${inline(facts.description)}${reasonList(facts.reasons)}</td>
        <td>${facts.retryAfter ? 'yes' : 'no'}</td>
        <td>${facts.fields.length ? facts.fields.map((f) => `<code>${wrappable(f)}</code>`).join(', ') : '—'}</td>
        <td>${facts.outcomeUnknown ? '<strong>yes</strong>' : 'no'}</td>
        <td class="ops">${returnedBy}</td>
      </tr>`;
    })
    .join('\n');
  const body = `    <h1>Error catalog</h1>
    <p>Every 4xx and 5xx answer carries one envelope,
    <code>{"error": {code, type, message, docs_url, request_id, …}}</code>, and its <code>docs_url</code> points at the
    code's row on this page: <code>&lt;docs site&gt;/errors.html#&lt;CODE&gt;</code>. ${errorCodes.length} codes, in catalog
    order. <code>GET /v1/errors</code> returns the same list.</p>
    <dl class="legend">
      <dt>Retry-After</dt><dd>the response carries a <code>Retry-After</code> header (whole seconds).</dd>
      <dt>Fields</dt><dd>envelope fields always present with this code (<code>required_scope</code>, <code>reason</code>, <code>layer</code>).</dd>
      <dt>Reasons</dt><dd>under a code's meaning, every <code>reason</code> it is sent with; a code without that list never carries one. Branch on <code>code</code>, then on <code>reason</code>.</dd>
      <dt>Outcome unknown</dt><dd>after a mutation, whether it took effect is unknown: reconcile with a read before retrying, or retry with the same <code>Idempotency-Key</code>.</dd>
    </dl>
    <p class="jump">Status: ${statuses.map((s) => `<a href="#status-${s}">${s}</a>`).join(' · ')}</p>
    <table class="catalog">
      <thead><tr><th scope="col">Code</th><th scope="col">Status</th><th scope="col">Type</th><th scope="col">Meaning</th><th scope="col">Retry-After</th><th scope="col">Fields</th><th scope="col">Outcome unknown</th><th scope="col">Returned by</th></tr></thead>
      <tbody>
${rows}
      </tbody>
    </table>
    <h2>By status</h2>
${statuses
  .map(
    (s) =>
      `    <p id="status-${s}"><strong>${s}</strong>: ${errorCodes
        .filter((code) => errorCatalog[code].status === s)
        .map((code) => `<a href="#${code}"><code>${code}</code></a>`)
        .join(', ')}</p>`,
  )
  .join('\n')}`;
  return layout(ctx, { file: 'errors.html', title: 'Error catalog', body });
}

/**
 * A code block. scripts/readme-check runs every shell block and type-checks every
 * `ts` one; `notRun` says why a block cannot run there, in a comment beside it.
 */
function code(block: string, options: { language?: 'sh' | 'ts' | 'json'; notRun?: string } = {}): string {
  const marker = options.notRun ? `<!-- not run by the docs test: ${escapeHtml(options.notRun)} -->\n    ` : '';
  return `${marker}<pre><code class="language-${options.language ?? 'sh'}">${escapeHtml(block)}</code></pre>`;
}

/**
 * The README's client example, line for line (a test holds the two equal), written from the
 * contract: operation ids, the creation-context header and the stack's URL are not typed here.
 */
export function clientExample(ctx: SiteContext): string {
  const stack = ctx.servers[0]!.url;
  const list = operationTable.minds_listMinds.operationId;
  const create = operationTable.minds_createMind.operationId;
  const creationContext = ctx.document.components?.parameters?.MindsCreationContext?.name;
  if (!creationContext) throw new Error('the contract has no MindsCreationContext parameter for the client example');
  return `import { createClient } from '@gateway-minds/client';   // Node 20+ and browsers

const client = createClient({ baseUrl: '${stack}', token: process.env.GATEWAY_MINDS_TOKEN });
const { context_sha256 } = await client.${list}();
const mind = await client.${create}({      // the Idempotency-Key is made for you
  params: { header: { '${creationContext}': context_sha256 } },
  body: { name: 'Sandbox demo' },
});
await client.waitForMind(mind.mind_id, 'ready', { onProgress: (m) => console.log(m.status) });
for await (const m of client.${list}.iterate()) console.log(m.mind_id, m.status);`;
}

/**
 * The API's release history as `npm run spec:changelog -- --format json` writes it
 * (scripts/spec-history/src/changelog.ts): the same data the packages' CHANGELOG.md are written from.
 */
export interface ChangelogEntry {
  /** null: the changes since the last release. */
  version: string | null;
  date: string | null;
  previous: string | null;
  initial: boolean;
  bump: 'major' | 'minor' | 'patch' | null;
  added: { operationId: string; method: string; path: string; summary?: string }[];
  removed: { operationId: string; method: string; path: string }[];
  changes: { id: string; level: 'breaking' | 'warning' | 'info'; operations: string[]; where: string; message: string }[];
}

export interface ChangelogHistory {
  unreleased: ChangelogEntry | null;
  /** Newest first. */
  releases: ChangelogEntry[];
}

/** The one thing search-index.json says first, so that the 404 page knows it found this site's and not another's. */
export const SEARCH_INDEX_FORMAT = 'gateway-minds-docs-search/1';

/**
 * The page a host answers a missing address with (GitHub Pages serves `404.html`, as `npm run docs:serve`
 * does), at whatever depth the missing address is, under whatever path the site is published: its
 * styles and icon are inline, so it renders before it knows where it is. A script then finds the
 * site's root, the nearest folder above the address that holds this site's search-index.json, makes
 * it the page's base (so the navigation's relative links lead to the site's pages) and loads the
 * site's search, which suggests pages for the address's last segment.
 */
export function notFoundPage(ctx: SiteContext): string {
  const findRoot = `(function () {
  var folders = [], parts = location.pathname.split('/');
  for (parts.pop(); parts.length > 0; parts.pop()) folders.push(parts.join('/') + '/');
  function found(root) {
    var base = document.createElement('base');
    base.href = root;
    document.head.insertBefore(base, document.head.firstChild);
    var search = document.createElement('script');
    search.src = root + 'search.js';
    document.head.appendChild(search);
  }
  (function next(i) {
    if (i >= folders.length) return;
    fetch(folders[i] + 'search-index.json', { cache: 'no-cache' })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (index) { if (index && index.format === ${JSON.stringify(SEARCH_INDEX_FORMAT)}) found(folders[i]); else next(i + 1); }, function () { next(i + 1); });
  })(0);
})();`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta http-equiv="Content-Security-Policy" content="${escapeHtml(ctx.csp)}">
  <title>Page not found · ${escapeHtml(ctx.siteTitle)}</title>
  <link rel="icon" href="data:image/svg+xml,${encodeURIComponent(favicon.trim())}" type="image/svg+xml">
  <style>
${stylesheet}  </style>
</head>
<body data-page="not-found">
  <nav class="gm-nav" aria-label="Site">
    <strong>${escapeHtml(ctx.siteTitle)}</strong>
    ${siteNav('404.html')}
  </nav>
  <main>
    <h1>Page not found</h1>
    <p>Nothing is published at this address. The operations are in the <a href="reference.html">API reference</a>, every error code in the <a href="errors.html">error catalog</a>.</p>
    <div id="gm-suggestions"></div>
  </main>
  <script>${findRoot}</script>
</body>
</html>
`;
}

const levelLabel = { breaking: 'Breaking', warning: 'Warning', info: 'Compatible' } as const;
const bumpLabel = { major: 'major: breaking changes', minor: 'minor: additive, existing calls keep working', patch: 'patch: descriptions or examples only' } as const;

/** One change in the review's words: its operations linked to the reference, its level and check id. */
function changeItem(change: ChangelogEntry['changes'][number]): string {
  const operations =
    change.operations.length === 0
      ? 'Whole API'
      : change.operations.length <= 5
        ? change.operations.map((o) => `<a href="${referenceAnchor(o)}"><code>${escapeHtml(o)}</code></a>`).join(', ')
        : `${change.operations.length} operations (${change.operations.map((o) => `<a href="${referenceAnchor(o)}"><code>${escapeHtml(o)}</code></a>`).join(', ')})`;
  return `        <li class="change change-${change.level}"><strong>${levelLabel[change.level]}</strong> ${operations}: ${inline(change.where)}: ${inline(change.message)} <small><code>${escapeHtml(change.id)}</code></small></li>`;
}

function entrySection(entry: ChangelogEntry): string {
  const id = entry.version ? `v${entry.version}` : 'unreleased';
  const heading = entry.version ? `${escapeHtml(entry.version)} <small>${escapeHtml(entry.date ?? '')}${entry.bump ? `, ${bumpLabel[entry.bump]}` : ''}</small>` : `Unreleased <small>since ${escapeHtml(entry.previous ?? '')}</small>`;
  const items = entry.initial
    ? ['        <li>The first version of the API.</li>']
    : [
        ...entry.added.map((o) => `        <li class="change change-info"><strong>Added</strong> <a href="${referenceAnchor(o.operationId)}"><code>${escapeHtml(o.operationId)}</code></a> <code>${o.method} ${escapeHtml(o.path)}</code>${o.summary ? `: ${inline(o.summary)}` : ''} <small><code>endpoint-added</code></small></li>`),
        ...entry.changes.filter((c) => c.id !== 'endpoint-added').map(changeItem),
      ];
  if (items.length === 0) items.push('        <li>No change to the document beyond its version.</li>');
  return `    <h2 id="${id}">${heading}</h2>
      <ul>
${items.join('\n')}
      </ul>`;
}

/**
 * The API's changelog for its consumers: each released version, newest first, the changes not yet
 * released on top; every change with its operation (linked to the reference), level and check id,
 * in the spec review's words. CI writes the history (`npm run spec:changelog`) before building the
 * published site; a build without it says how to make it.
 */
export function changelogPage(ctx: SiteContext, history: ChangelogHistory | undefined): string {
  const sections = history ? [...(history.unreleased ? [history.unreleased] : []), ...(history.releases ?? [])].map(entrySection) : [];
  const body = `    <h1>Changelog</h1>
    <p>Every released version of the API, newest first, with each change the spec review reports: the operation it
    touches, its level (breaking, warning, compatible) and its check id. A breaking change comes only with a new major version.</p>
${history === undefined ? '    <p>This build has no release history: the published site is built with it (<code>npm run spec:changelog -- --format json --output apps/docs/changelog.json</code>, then <code>npm run docs</code>).</p>' : sections.join('\n\n')}`;
  return layout(ctx, { file: 'changelog.html', title: 'Changelog', body });
}

/** The README's "Use it from npm" client example: the installed package against any gateway. */
export function npmClientExample(_ctx: SiteContext): string {
  return `import { createClient } from '@gateway-minds/client';   // ESM; Node 20.19+ and browsers

const client = createClient({ baseUrl: 'https://gateway.example.com', token: process.env.GATEWAY_MINDS_TOKEN });
console.log(await client.${operationTable.gateway_getPrincipal.operationId}());`;
}

/** The README's published MCP client configuration ("Use it from npm"): npx fetches the package, from any directory. */
export function publishedMcpConfig(tokenPrefix: string): string {
  return JSON.stringify(
    {
      mcpServers: {
        'gateway-minds': {
          command: 'npx',
          args: ['-y', '@gateway-minds/mcp', '--read-only'],
          env: { GATEWAY_MINDS_TOKEN: `${tokenPrefix}...`, GATEWAY_MINDS_URL: 'https://gateway.example.com' },
        },
      },
    },
    null,
    2,
  );
}

export function gettingStartedPage(ctx: SiteContext): string {
  const stack = ctx.servers[0]!.url;
  const mock = ctx.servers[1]!.url;
  const whoami = operationTable.gateway_getPrincipal;
  const status = operationTable.gateway_getStatus;
  const session = credentialSchemes.bridge_session;
  const kinds = Object.values(credentialSchemes)
    .map((c) => `<code>${c.kind}</code> (<code>${c.tokenPrefix}…</code>)`)
    .join(', ');
  const someError = errorCatalog.CREDENTIAL_INVALID;
  const operationsTable = operationIds
    .map((id) => {
      const o = operationTable[id];
      return `        <tr><td><a href="${referenceAnchor(id)}"><code>${id}</code></a></td><td><code>${o.method.toUpperCase()} ${escapeHtml(o.path)}</code></td><td>${inline(o.summary)}</td></tr>`;
    })
    .join('\n');
  const body = `    <h1>Getting started</h1>
    <p>${inline(String(ctx.document.info.summary ?? ctx.document.info.title))} One hand-written OpenAPI 3.1 contract
    describes every operation; the servers, the typed client, the mock and this site are built from it.
    Download it: <a href="openapi.json">openapi.json</a>, <a href="openapi.yaml">openapi.yaml</a>.</p>

    <h2 id="npm">Use it from npm</h2>
    <p>The client, CLI, MCP server and MSW handlers are npm packages. A package's version is the API version it speaks
    (<code>${escapeHtml(String(ctx.document.info.version))}</code> here), and each package's CHANGELOG.md says what changed
    in the API. Install the client and point it at a gateway's base URL:</p>
    ${code('npm install @gateway-minds/client', { notRun: 'the packages are on npm only after the first release; scripts/release installs these same packages from their tarballs and runs them' })}
    ${code(npmClientExample(ctx), { language: 'ts' })}
    <p>The CLI: <code>npx -p @gateway-minds/cli gateway-minds ${whoami.operationId}</code> with <code>GATEWAY_MINDS_URL</code>
    and <code>GATEWAY_MINDS_TOKEN</code> set. The MCP server, in an MCP client's configuration (it works from any
    directory):</p>
    ${code(publishedMcpConfig(session.tokenPrefix), { language: 'json' })}

    <h2 id="quick-start">Quick start</h2>
    <p>Node 20.19 or newer; no database server is needed (the stack keeps its data in <code>./data</code>).</p>
    ${code('npm install && npm start', { notRun: 'npm start keeps the stack in the foreground; the test starts the same program on free ports' })}
    <p>The gateway listens on <code>${stack}</code> with the Minds service behind it.
    <code>${status.method.toUpperCase()} ${status.path}</code> needs no credential:</p>
    ${code(`curl ${stack}${status.path}`)}

    <h2 id="credentials">Credentials</h2>
    <p>Credentials are issued by the gateway's admin command (it talks to the admin listener on the same machine).
    A signed-in session (<code>${session.kind}</code>, tokens start with <code>${session.tokenPrefix}</code>) is what the
    Minds operations accept:</p>
    ${code(`npm run admin -- issue --kind ${session.kind}     # prints JSON with the token, shown once
curl ${stack}${whoami.path} -H "Authorization: Bearer <token>"`)}
    <p>Other kinds: ${kinds}. <code>--scopes a,b</code>, <code>--org</code>/<code>--project</code>,
    <code>--no-sandbox</code> and <code>--expires-in</code> shape what is issued; <code>npm run admin -- revoke &lt;id&gt;</code>
    revokes. Send exactly one <code>Authorization: Bearer</code> header.</p>

    <h2 id="mock">The mock, for front-end work</h2>
    <p>A Prism mock of the same contract answers every operation with the spec's named examples, with no database and
    no credential store:</p>
    ${code(`npm run mock                                   # ${mock}  (MOCK_PORT changes the port); not run by the docs test: it stays in the foreground
curl ${mock}${whoami.path} -H 'Authorization: Bearer ${session.tokenPrefix}any'
curl ${mock}${whoami.path} -H 'Authorization: Bearer ${session.tokenPrefix}any' -H 'Prefer: code=${someError.status}, example=CREDENTIAL_INVALID'`)}
    <p>The first named example of the success response is the default answer. <code>Prefer: code=&lt;status&gt;</code> picks
    another response, <code>Prefer: example=&lt;name&gt;</code> another example (example names are shown in the
    <a href="reference.html">reference</a>; error examples are named after their code). The mock validates requests:
    one that breaks the contract (a missing required field, a wrong pattern, no bearer) gets one of the operation's
    declared error responses (the first example of that status, not necessarily the code the real server would pick).
    A selection that names no example (a typo, a status the operation does not declare) gets 400
    <code>BAD_REQUEST</code> listing every example of the operation, from the mock and the MSW handlers alike.
    Switching between the mock and the real stack changes only the base URL: <code>${mock}</code> or
    <code>${stack}</code>, from a page on another origin too (the local gateway answers CORS for
    <code>http://localhost</code> and <code>http://127.0.0.1</code> on any port; a deployment for the origins in
    <code>CORS_ALLOWED_ORIGINS</code>).</p>
    <p>Inside the app and its tests, with no server running, the MSW handlers answer the same examples with the same
    <code>Prefer</code> selection (<code>npm install --save-dev @gateway-minds/msw msw</code>, then
    <code>setupServer(...createHandlers({ baseUrl }))</code> from <code>msw/node</code>, or <code>setupWorker</code> from
    <code>msw/browser</code>); with <code>validateRequests: true</code> they refuse an invalid request with the code the
    real stack sends.</p>

    <h2 id="client">The typed client</h2>
    <p><code>@gateway-minds/client</code> has one method per operation id, typed from the contract, with typed errors.
    With a token from <code>npm run admin -- issue --kind ${session.kind}</code> in <code>GATEWAY_MINDS_TOKEN</code>:</p>
    ${code(clientExample(ctx), { language: 'ts' })}
    <p>Errors throw <code>APIError</code> subclasses carrying <code>code</code>, <code>status</code>, <code>docsUrl</code>
    and <code>requestId</code>. Against the mock, set <code>baseUrl</code> to <code>${mock}</code>: the same program runs
    to its end there (any <code>${session.tokenPrefix}…</code> token).</p>

    <h2 id="errors">Errors</h2>
    <p>Every error is <code>{"error": {code, type, message, docs_url, request_id, …}}</code>; <code>docs_url</code> links to
    the code's entry in the <a href="errors.html">error catalog</a>, for example
    <a href="errors.html#CREDENTIAL_INVALID"><code>errors.html#CREDENTIAL_INVALID</code></a>. The request id is also the
    <code>X-Request-Id</code> header: quote it when you report a problem.</p>

    <h2 id="operations">Operations</h2>
    <table class="operations">
      <thead><tr><th scope="col">Operation id</th><th scope="col">Method and path</th><th scope="col">Summary</th></tr></thead>
      <tbody>
${operationsTable}
      </tbody>
    </table>`;
  return layout(ctx, { file: 'index.html', title: 'Getting started', body });
}

export const stylesheet = `:root { color-scheme: light; --fg: #1f2933; --muted: #616e7c; --line: #d9dee3; --accent: #0b5cad; --mark: #fff4c2; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); }
.gm-nav { display: flex; gap: 1.25rem; align-items: center; height: 40px; padding: 0 1.25rem; font-size: 14px; background: #1f2933; color: #e4e7eb; }
.gm-nav a { color: #e4e7eb; text-decoration: none; }
.gm-nav a:hover, .gm-nav a[aria-current] { color: #fff; text-decoration: underline; }
.gm-nav strong { margin-right: auto; font-weight: 600; color: #fff; }
main { max-width: 1200px; margin: 0 auto; padding: 1.5rem 1.25rem 4rem; }
h1 { font-size: 1.8rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.3rem; margin: 2rem 0 .75rem; padding-top: .5rem; border-top: 1px solid var(--line); }
a { color: var(--accent); }
code { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #f1f3f5; padding: .05rem .25rem; border-radius: 3px; }
pre { background: #f1f3f5; padding: .75rem 1rem; border-radius: 6px; overflow-x: auto; }
pre code { background: none; padding: 0; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; vertical-align: top; padding: .4rem .5rem; border-bottom: 1px solid var(--line); }
thead th { position: sticky; top: 0; background: #fff; border-bottom: 2px solid var(--line); }
tr, p[id], h2[id] { scroll-margin-top: 3rem; }
tr:target { background: var(--mark); }
summary { cursor: pointer; color: var(--accent); }
tr:target th code { font-weight: 700; }
td.ops code { font-size: 12px; }
.ops a { display: inline-block; margin: 0 .25rem .15rem 0; }
td.ops { min-width: 10rem; }
/* Codes, types and operation ids wrap after an underscore (<wbr>), so the catalog fits a 1280 px window. */
.anchor { text-decoration: none; }
.muted { color: var(--muted); }
ul.reasons { margin: .35rem 0 0; padding-left: 1.1rem; font-size: 13px; color: var(--muted); }
ul.reasons code { color: var(--fg); }
.legend { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0 0 1rem; }
.legend dt { font-weight: 600; }
.legend dd { margin: 0; }
.jump { color: var(--muted); }
.gm-suggestions li { margin: .35rem 0; }
.gm-suggestions .gm-search-section { display: inline-block; min-width: 8rem; color: var(--muted); font-size: 13px; }
.gm-suggestions small { display: block; color: var(--muted); }
${searchStyles}
`;

export const favicon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1f2933"/><text x="8" y="12" text-anchor="middle" font-family="sans-serif" font-size="10" font-weight="700" fill="#fff">v1</text></svg>
`;
