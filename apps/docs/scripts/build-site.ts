/**
 * `npm run docs` (turbo `build`): the site into dist/site (scripts/site.ts), for the deployment the
 * environment describes: PUBLIC_BASE_URL (the production gateway the reference lists) and NODE_ENV
 * (production lists only it; any other build adds the local stack and mock). SPEC_CHANGELOG_JSON, or
 * changelog.json beside the package, is the API changelog.
 */
import { join } from 'node:path';
import { buildSite, packageDir, siteSettingsOf } from './site.js';

const started = performance.now();
const siteDir = join(packageDir, 'dist/site');
// The changelog needs the git history of spec/, which a build does not always have: CI writes it before publishing.
// Beside the package, not in dist/: turbo hashes it as an input (apps/docs/turbo.json), where a file in
// dist/ was neither hashed nor safe from the cached outputs restored over it, so the site kept "no history".
const built = await buildSite({ siteDir, settings: siteSettingsOf(process.env), changelogJson: process.env.SPEC_CHANGELOG_JSON ?? join(packageDir, 'changelog.json') });
console.log(
  `docs: ${built.files.length} files, ${(built.bytes / 1024).toFixed(0)} KiB -> ${siteDir} ` +
    `(reference ${(built.referenceBytes / 1024).toFixed(0)} KiB, servers ${built.servers.map((s) => s.url).join(', ') || 'none'}, ${built.cdnUrls} CDN URLs pointed into the site, ${((performance.now() - started) / 1000).toFixed(1)} s)`,
);
