/**
 * The client runs in browsers: its built entry bundles for the browser
 * platform with no Node built-in, and its size is held under a budget.
 *
 * Budget: 20 kB gzip for the whole minified browser bundle (client, the
 * generated runtime table, openapi-fetch, the parts of jose DPoP signing
 * uses). Measured at 14 kB when set. The full operation table with every
 * description is not in it (the build slims it), and must stay out.
 */
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const BUDGET_GZIP_BYTES = 20 * 1024;
const entry = fileURLToPath(new URL('../dist/index.js', import.meta.url));

describe('the built client', () => {
  it(`bundles for the browser without Node built-ins, under ${BUDGET_GZIP_BYTES / 1024} kB gzip`, async () => {
    const result = await build({ entryPoints: [entry], bundle: true, minify: true, platform: 'browser', format: 'esm', write: false, metafile: true, logLevel: 'silent' });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((file) => file.startsWith('node:') || /(^|\/)node_modules\/@types\/node\//.test(file))).toEqual([]);
    const code = result.outputFiles[0]!.contents;
    const gzip = gzipSync(code).length;
    console.log(`client bundle: ${code.length} bytes minified, ${gzip} bytes gzip (budget ${BUDGET_GZIP_BYTES})`);
    expect(gzip).toBeLessThan(BUDGET_GZIP_BYTES);
    expect(inputs.some((file) => file.includes('contract/dist/generated/operation-table'))).toBe(false);
  });

  it('imports nothing from node: in its built files', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const dist = fileURLToPath(new URL('../dist/', import.meta.url));
    const core = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    for (const file of core) expect(readFileSync(dist + file, 'utf8'), file).not.toMatch(/from ['"]node:|require\(['"]node:|process\.env/);
  });
});
