/**
 * Builds the reference site into dist/site from the bundled contract:
 * reference.html (Redoc via `redocly build-docs --inlineBundle`, so the page
 * loads nothing from a CDN), errors.html and index.html (from the contract's
 * catalog and operation table), the bundled spec, and a stylesheet.
 * Fails if any page would fetch something from outside the folder.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { operationIds, operationTable, type OpenApiDocument } from '@gateway-minds/contract';
import { externalResourceUrls } from '../src/offline-check.js';
import { changelogPage, errorsPage, favicon, gettingStartedPage, notFoundPage, siteNav, stylesheet, type ChangelogHistory, type SiteContext } from './pages.js';

const started = performance.now();
const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const siteDir = join(packageDir, 'dist/site');
const require = createRequire(import.meta.url);

const specJson = fileURLToPath(import.meta.resolve('@gateway-minds/contract/openapi.json'));
const specYaml = fileURLToPath(import.meta.resolve('@gateway-minds/contract/openapi.yaml'));
const document = JSON.parse(await readFile(specJson, 'utf8')) as OpenApiDocument;
const servers = (document.servers ?? []) as { url: string; description: string }[];
if (servers.length < 2) throw new Error('the contract lists the local stack and the mock as its servers; found fewer than two');

const siteTitle = `${document.info.title} ${document.info.version}`;
// Everything the pages load comes from the site itself. The reference's
// "try it" panel may call the servers the spec lists (the local stack, the mock).
const csp = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  `connect-src 'self' ${servers.map((s) => new URL(s.url).origin).join(' ')}`,
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');
const ctx: SiteContext = { document, siteTitle, csp, servers };

await rm(siteDir, { recursive: true, force: true });
await mkdir(siteDir, { recursive: true });

// The reference: Redoc rendered to static HTML with its scripts inlined.
const redoclyBin = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin/cli.js');
const referenceFile = join(siteDir, 'reference.html');
const redocly = spawnSync(
  process.execPath,
  [
    redoclyBin,
    'build-docs',
    specJson,
    '--inlineBundle',
    '--output',
    referenceFile,
    '--template',
    join(packageDir, 'templates/reference.hbs'),
    '--title',
    `API reference · ${siteTitle}`,
    '--lint-config',
    'off',
  ],
  {
    cwd: packageDir,
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' },
  },
);
if (redocly.status !== 0) {
  throw new Error(`redocly build-docs failed (${redocly.status}):\n${redocly.stdout}\n${redocly.stderr}`);
}

let reference = await readFile(referenceFile, 'utf8');
reference = reference.replace('@@CSP@@', csp).replace('@@SITE_TITLE@@', siteTitle).replace('@@SITE_NAV@@', siteNav('reference.html'));
// Redoc 3 routes by the fragment (`#/minds/minds_getmind`): `#operation/<id>`, the link form the
// README and these pages give, is no route of its own, and Redoc showed its "No page at this
// address" for seconds before it found the operation. A script in <head>, before anything is
// painted or Redoc reads the address, turns it into the operation's route. The routes are Redoc's:
// its sidebar's route for the operation's tag, then the operation id in lower case.
const redocStart = reference.indexOf('<div id="redoc"');
const redocScript = reference.indexOf('<script type="module">', redocStart);
if (redocStart < 0 || redocScript < 0) throw new Error('reference.html: no pre-rendered <div id="redoc"> followed by its module script');
const prerendered = reference.slice(redocStart, redocScript);
const tagRoutes = new Map<string, string>();
for (const link of prerendered.matchAll(/<a [^>]*href="(\/[^"#]*)"[^>]*>(?:(?!<\/a>)[\s\S])*?data-text="([^"]*)"/g)) {
  tagRoutes.set(link[2]!.replace(/&amp;/g, '&'), link[1]!);
}
const operationRoutes = Object.fromEntries(
  operationIds.map((id) => {
    const tagRoute = tagRoutes.get(operationTable[id].tag);
    if (!tagRoute) throw new Error(`the reference's sidebar has no route for tag ${operationTable[id].tag} (of ${id})`);
    return [id, `${tagRoute}/${id.toLowerCase()}`];
  }),
);
// The pre-rendered sidebar's links are root paths (`/minds`), which the hash router only rewrites
// once the page is hydrated: opened in a new tab before then they are 404s. Written as the hash
// routes they stand for, they work from the first paint, and hydration finds what it would render.
const prerenderedWithHashLinks = prerendered.replace(/(<a [^>]*?)href="\/(?!\/)/g, '$1href="#/');
reference = reference.slice(0, redocStart) + prerenderedWithHashLinks + reference.slice(redocScript);
const operationAnchorScript = `(function () {
  var routes = ${JSON.stringify(operationRoutes)};
  function toRoute() {
    var match = /^#operation\\/([^/?#]+)$/.exec(location.hash);
    var route = match && routes[decodeURIComponent(match[1])];
    if (route) history.replaceState(history.state, '', '#' + route);
  }
  toRoute();
  // Registered before Redoc's router, so a same-page link to #operation/<id> is a route when it looks.
  window.addEventListener('popstate', toRoute);
  window.addEventListener('hashchange', toRoute);
})();`;
reference = reference.replace('@@OPERATION_ANCHORS@@', operationAnchorScript);
// Redoc's "API docs by Redocly" badge is an <img> from Redocly's CDN; keep the
// attribution, served from the site.
const badgeUrls = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(-full)?\.svg/g;
const badges = reference.match(badgeUrls)?.length ?? 0;
reference = reference.replace(badgeUrls, (_url, full: string | undefined) => (full ? 'redocly-badge.svg' : 'redocly-mark.svg'));
// Redoc's icon sets (used only by icon names this spec does not set) point at
// the CDN too: point them into the site, so that even then nothing leaves it.
const iconBases = /https:\/\/cdn\.redocly\.com\/icons\//g;
const icons = reference.match(iconBases)?.length ?? 0;
reference = reference.replace(iconBases, 'icons/');
if (!reference.includes('"disableTelemetry":true')) throw new Error('the reference page was built with Redoc telemetry on');
await writeFile(referenceFile, reference);
await writeFile(
  join(siteDir, 'redocly-badge.svg'),
  `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="16" viewBox="0 0 64 16"><text x="0" y="12" font-family="sans-serif" font-size="12" font-weight="600" fill="#0044d4">Redocly</text></svg>\n`,
);
await writeFile(
  join(siteDir, 'redocly-mark.svg'),
  `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><text x="2" y="12" font-family="sans-serif" font-size="12" font-weight="700" fill="#0044d4">R</text></svg>\n`,
);

await writeFile(join(siteDir, 'errors.html'), errorsPage(ctx));
await writeFile(join(siteDir, 'index.html'), gettingStartedPage(ctx));
// The changelog needs the releases (tags) and the history of spec/, which a build does not always have: CI writes it before publishing.
// Beside the package, not in dist/: turbo hashes it as an input (apps/docs/turbo.json), where a file in
// dist/ was neither hashed nor safe from the cached outputs restored over it, so the site kept "no history".
const changelogJson = process.env.SPEC_CHANGELOG_JSON ?? join(packageDir, 'changelog.json');
const changelog = existsSync(changelogJson) ? (JSON.parse(await readFile(changelogJson, 'utf8')) as ChangelogHistory) : undefined;
await writeFile(join(siteDir, 'changelog.html'), changelogPage(ctx, changelog));
await writeFile(join(siteDir, '404.html'), notFoundPage(ctx));
await writeFile(join(siteDir, 'style.css'), stylesheet);
await writeFile(join(siteDir, 'favicon.svg'), favicon);
await copyFile(specJson, join(siteDir, 'openapi.json'));
await copyFile(specYaml, join(siteDir, 'openapi.yaml'));
// GitHub Pages: serve the folder as is (no Jekyll processing).
await writeFile(join(siteDir, '.nojekyll'), '');

// The site must load nothing from outside itself.
const files = await readdir(siteDir);
const problems: string[] = [];
let bytes = 0;
for (const file of files) {
  bytes += (await stat(join(siteDir, file))).size;
  if (!/\.(html|css|svg)$/.test(file)) continue;
  for (const url of externalResourceUrls(await readFile(join(siteDir, file), 'utf8'))) problems.push(`${file}: ${url}`);
}
if (problems.length > 0) throw new Error(`the site would fetch from outside itself:\n${problems.join('\n')}`);

console.log(
  `docs: ${files.length} files, ${(bytes / 1024).toFixed(0)} KiB -> ${siteDir} ` +
    `(reference ${(reference.length / 1024).toFixed(0)} KiB, ${badges + icons} CDN URLs pointed into the site, ${((performance.now() - started) / 1000).toFixed(1)} s)`,
);
