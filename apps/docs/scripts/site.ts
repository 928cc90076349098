/**
 * Builds the reference site into a folder from the bundled contract:
 * reference.html (Redoc via `redocly build-docs --inlineBundle`, so the page
 * loads nothing from a CDN), errors.html, index.html, changelog.html and a 404
 * page (from the contract's catalog and operation table), the search over all of
 * them (search.js and search-index.json), the bundled spec, and a stylesheet.
 * Fails if any page would fetch something from outside the folder.
 *
 * Which servers the reference lists, and so which the pages' CSP lets them
 * call, is a setting (SiteSettings): the production gateway (PUBLIC_BASE_URL)
 * when it is known, and the local stack and mock only in a development build.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { operationIds, operationTable, type OpenApiDocument } from '@gateway-minds/contract';
import { externalResourceUrls } from '../src/offline-check.js';
import { changelogPage, errorsPage, favicon, gettingStartedPage, notFoundPage, searchStyles, siteNav, stylesheet, type ChangelogHistory, type SiteContext } from './pages.js';
import { buildSearchIndex } from './search-index.js';

export const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

export interface Server {
  url: string;
  description: string;
}

/** What a build of the site is for. */
export interface SiteSettings {
  /** PUBLIC_BASE_URL: where callers reach the production gateway, listed first when set. */
  publicBaseUrl: string | undefined;
  /** Not NODE_ENV=production: the spec's local servers (`npm start`, `npm run mock`) are listed too. */
  development: boolean;
}

export function siteSettingsOf(env: Record<string, string | undefined>): SiteSettings {
  const publicBaseUrl = env.PUBLIC_BASE_URL?.trim().replace(/\/+$/, '') || undefined;
  if (publicBaseUrl && !/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/.test(publicBaseUrl)) throw new Error(`PUBLIC_BASE_URL is not an http(s) URL: ${publicBaseUrl}`);
  return { publicBaseUrl, development: env.NODE_ENV !== 'production' };
}

/** The servers the reference lists: the production gateway when known, then, in a development build, the spec's local ones. */
export function listedServers(specServers: readonly Server[], settings: SiteSettings): Server[] {
  return [
    ...(settings.publicBaseUrl ? [{ url: settings.publicBaseUrl, description: 'The gateway.' }] : []),
    ...(settings.development ? specServers : []),
  ];
}

/**
 * Everything the pages load comes from the site itself; scripts may call the site (the search
 * index) and the servers the reference lists (its "try it" panel), nothing else.
 */
export function contentSecurityPolicy(servers: readonly Server[]): string {
  const origins = [...new Set(servers.map((s) => new URL(s.url).origin))];
  return [
    "default-src 'self'",
    "script-src 'self' 'unsafe-inline'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src ${["'self'", ...origins].join(' ')}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join('; ');
}

export interface BuiltSite {
  files: string[];
  bytes: number;
  referenceBytes: number;
  cdnUrls: number;
  servers: Server[];
}

/** Builds the site into `siteDir` (emptied first). `changelogJson`: the API changelog, when there is one. */
export async function buildSite(options: { siteDir: string; settings: SiteSettings; changelogJson?: string | undefined }): Promise<BuiltSite> {
  const { siteDir, settings } = options;
  const specJson = fileURLToPath(import.meta.resolve('@gateway-minds/contract/openapi.json'));
  const specYaml = fileURLToPath(import.meta.resolve('@gateway-minds/contract/openapi.yaml'));
  const document = JSON.parse(await readFile(specJson, 'utf8')) as OpenApiDocument;
  const specServers = (document.servers ?? []) as Server[];
  if (specServers.length < 2) throw new Error('the contract lists the local stack and the mock as its servers; found fewer than two');
  const servers = listedServers(specServers, settings);

  const siteTitle = `${document.info.title} ${document.info.version}`;
  const csp = contentSecurityPolicy(servers);
  const ctx: SiteContext = { document, siteTitle, csp, servers: specServers };

  await rm(siteDir, { recursive: true, force: true });
  await mkdir(siteDir, { recursive: true });

  // The reference lists the servers this build is for: Redoc renders the document as given, so it gets a copy with them.
  const scratch = await mkdtemp(join(tmpdir(), 'gateway-minds-docs-'));
  const referenceSpec = join(scratch, 'openapi.json');
  await writeFile(referenceSpec, JSON.stringify({ ...document, servers }));

  const redoclyBin = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin/cli.js');
  const referenceFile = join(siteDir, 'reference.html');
  const redocly = spawnSync(
    process.execPath,
    [
      redoclyBin,
      'build-docs',
      referenceSpec,
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
  await rm(scratch, { recursive: true, force: true });
  if (redocly.status !== 0) {
    throw new Error(`redocly build-docs failed (${redocly.status}):\n${redocly.stdout}\n${redocly.stderr}`);
  }

  let reference = await readFile(referenceFile, 'utf8');
  reference = reference.replace('@@CSP@@', csp).replace('@@SITE_TITLE@@', siteTitle).replace('@@SITE_NAV@@', siteNav('reference.html')).replace('@@SEARCH_STYLES@@', searchStyles);
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
  const changelogJson = options.changelogJson;
  const changelog = changelogJson && existsSync(changelogJson) ? (JSON.parse(await readFile(changelogJson, 'utf8')) as ChangelogHistory) : undefined;
  await writeFile(join(siteDir, 'changelog.html'), changelogPage(ctx, changelog));
  await writeFile(join(siteDir, '404.html'), notFoundPage(ctx));
  await writeFile(join(siteDir, 'style.css'), stylesheet);
  // The search over every page: its index, read from the pages as built, and its script.
  const pages = await Promise.all(['index.html', 'errors.html', 'changelog.html'].map(async (file) => ({ file, html: await readFile(join(siteDir, file), 'utf8') })));
  await writeFile(join(siteDir, 'search-index.json'), JSON.stringify(buildSearchIndex(pages)));
  await build({
    entryPoints: [join(packageDir, 'scripts/browser/search.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    outfile: join(siteDir, 'search.js'),
    logLevel: 'warning',
  });
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
    if (!/\.(html|css|svg|js)$/.test(file)) continue;
    for (const url of externalResourceUrls(await readFile(join(siteDir, file), 'utf8'))) problems.push(`${file}: ${url}`);
  }
  if (problems.length > 0) throw new Error(`the site would fetch from outside itself:\n${problems.join('\n')}`);

  return { files, bytes, referenceBytes: reference.length, cdnUrls: badges + icons, servers };
}
