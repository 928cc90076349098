/** Where the author's loop finds the repository and keeps its own files. */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const specDir = join(repoRoot, 'spec');
/** The bundled contract, as the contract's build writes it. */
export const bundledContract = join(repoRoot, 'packages/contract/dist/openapi.json');
/** The loop's own files (the copy of the contract the mock serves), where tools keep caches. */
export const devCacheDir = join(repoRoot, 'node_modules/.cache/gateway-minds-dev');
export const turboBin = join(repoRoot, 'node_modules/.bin/turbo');
