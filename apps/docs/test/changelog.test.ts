/**
 * The docs site's Changelog page, rendered from the release history (`npm run spec:changelog`, the
 * data the packages' CHANGELOG.md are written from): for an API consumer, grouped by released
 * version, newest first, the unreleased changes on top; every change with its operation linked to
 * the reference, its level and its check id, in the spec review's words; no commit messages, no
 * counts standing in for changes.
 */
import { openapiDocument } from '@gateway-minds/contract/document';
import { describe, expect, it } from 'vitest';
import { changelogPage, type ChangelogHistory, type SiteContext } from '../scripts/pages.js';

const ctx: SiteContext = {
  document: openapiDocument as SiteContext['document'],
  siteTitle: 'Gateway and Minds API',
  csp: "default-src 'self'",
  servers: [
    { url: 'http://127.0.0.1:8080', description: 'stack' },
    { url: 'http://127.0.0.1:4010', description: 'mock' },
  ],
};

const history: ChangelogHistory = {
  unreleased: {
    version: null,
    date: null,
    previous: '0.3.0',
    initial: false,
    bump: null,
    added: [{ operationId: 'minds_pauseMind', method: 'POST', path: '/v1/minds/{mind_id}/pause', summary: 'Pause a Mind' }],
    removed: [],
    changes: [
      { id: 'endpoint-added', level: 'info', operations: ['minds_pauseMind'], where: '`POST /v1/minds/{mind_id}/pause`', message: 'operation added: Pause a Mind' },
      { id: 'request-description-changed', level: 'info', operations: ['minds_createMind'], where: 'schema `CreateMindRequest` (request) .name', message: 'description changed: “The Mind’s name.”' },
    ],
  },
  releases: [
    {
      version: '0.3.0',
      date: '2026-12-01',
      previous: '0.2.2',
      initial: false,
      bump: 'major',
      added: [],
      removed: [{ operationId: 'gateway_getUsage', method: 'GET', path: '/v1/usage' }],
      changes: [
        { id: 'api-removed', level: 'breaking', operations: ['gateway_getUsage'], where: '`GET /v1/usage`', message: 'operation removed without being deprecated first' },
        { id: 'response-enum-value-added', level: 'warning', operations: ['minds_getMind', 'minds_listMinds'], where: 'schema `MindStatus` (response)', message: 'may now return enum value `paused`' },
        { id: 'api-error-reason-added', level: 'info', operations: [], where: 'error code `NOT_FOUND`', message: 'reason added: `pause_not_found`' },
      ],
    },
    { version: '0.2.2', date: '2026-11-25', previous: '0.2.1', initial: false, bump: 'patch', added: [], removed: [], changes: [{ id: 'response-body-example-changed', level: 'info', operations: ['gateway_getStatus'], where: 'response 503', message: 'examples: changed `unavailable`' }] },
    { version: '0.1.12', date: '2026-11-24', previous: null, initial: true, bump: null, added: [], removed: [], changes: [] },
  ],
};

describe('the Changelog page', () => {
  const html = changelogPage(ctx, history);
  const headings = [...html.matchAll(/<h2 id="([^"]+)">/g)].map((m) => m[1]);

  it('groups changes by released version, newest first, the unreleased ones on top', () => {
    expect(headings).toEqual(['unreleased', 'v0.3.0', 'v0.2.2', 'v0.1.12']);
    expect(html).toContain('<h2 id="v0.3.0">0.3.0 <small>2026-12-01, major: breaking changes</small></h2>');
    expect(html).toContain('<h2 id="unreleased">Unreleased <small>since 0.3.0</small></h2>');
  });

  it('lists every change with its operation linked to the reference, its level and its check id, in the review\'s words', () => {
    expect(html).toContain(
      '<li class="change change-breaking"><strong>Breaking</strong> <a href="reference.html#operation/gateway_getUsage"><code>gateway_getUsage</code></a>: <code>GET /v1/usage</code>: operation removed without being deprecated first <small><code>api-removed</code></small></li>',
    );
    expect(html).toContain('<strong>Warning</strong> <a href="reference.html#operation/minds_getMind"><code>minds_getMind</code></a>, <a href="reference.html#operation/minds_listMinds"><code>minds_listMinds</code></a>: schema <code>MindStatus</code> (response): may now return enum value <code>paused</code>');
    expect(html).toContain('<strong>Compatible</strong> Whole API: error code <code>NOT_FOUND</code>: reason added: <code>pause_not_found</code> <small><code>api-error-reason-added</code></small>');
    expect(html).toContain('<strong>Added</strong> <a href="reference.html#operation/minds_pauseMind"><code>minds_pauseMind</code></a> <code>POST /v1/minds/{mind_id}/pause</code>: Pause a Mind');
    // A description is listed like any change, not counted.
    expect(html).toContain('description changed: “The Mind’s name.” <small><code>request-description-changed</code></small>');
    expect(html).not.toMatch(/\d+ compatible changes?/);
  });

  it('says how to build it when the build has no history', () => {
    expect(changelogPage(ctx, undefined)).toContain('npm run spec:changelog -- --format json --output apps/docs/changelog.json');
  });
});
