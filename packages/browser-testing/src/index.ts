/**
 * The one way a browser test gets a Chromium: the system's when there is one
 * (CHROMIUM_PATH, or Debian's /usr/bin/chromium), otherwise the headless
 * Chromium that @sparticuz/chromium ships inside its npm package, so that
 * `npm install && npm test` needs no browser on the machine. The package
 * extracts its binary on first use (about 2 s) and reuses it afterwards.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** System browsers tried in order before the packaged one. */
const systemChromiumPaths = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** Flags both browsers get: nothing may reach out of the machine or wait for a display. */
const quietArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface ChromiumExecutable {
  path: string;
  /** Where it came from, for failure messages and the test log. */
  source: 'CHROMIUM_PATH' | 'system' | '@sparticuz/chromium';
  args: string[];
}

export async function findChromium(): Promise<ChromiumExecutable> {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH=${configured} does not exist`);
    return { path: configured, source: 'CHROMIUM_PATH', args: [...quietArgs, '--headless'] };
  }
  const system = systemChromiumPaths.find((path) => existsSync(path));
  if (system) return { path: system, source: 'system', args: [...quietArgs, '--headless'] };
  // Loaded only when needed: importing it reads nothing, but there is no reason to pay for it.
  const { default: packaged } = await import('@sparticuz/chromium');
  // WebGL is not needed, and without it the SwiftShader archive is not extracted.
  packaged.setGraphicsMode = false;
  // The package extracts into (and reuses) <tmpdir>/chromium whatever its version; a folder per
  // version keeps another checkout's different Chromium, or its half-done extraction, out of the way.
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium'); // <package>/build/cjs/index.js
  const { version } = JSON.parse(readFileSync(join(dirname(entry), '../../package.json'), 'utf8')) as { version: string };
  const extractTo = join(tmpdir(), `sparticuz-chromium-${version}`);
  mkdirSync(extractTo, { recursive: true });
  const previousTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = extractTo;
  let path: string;
  try {
    path = await packaged.executablePath();
  } finally {
    if (previousTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmpdir;
  }
  // Its own flag list is for AWS Lambda (one process, no web security); only the
  // headless mode it was built for is kept.
  return { path, source: '@sparticuz/chromium', args: [...quietArgs, "--headless='shell'"] };
}

/** Starts a headless Chromium under playwright-core, with `extraArgs` added to its flags; the caller closes it. */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  const executable = await findChromium();
  try {
    return await chromium.launch({ executablePath: executable.path, args: [...executable.args, ...extraArgs] });
  } catch (error) {
    throw new Error(`could not start Chromium from ${executable.source} (${executable.path}): ${(error as Error).message}`, { cause: error });
  }
}
