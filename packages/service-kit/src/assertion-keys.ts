/**
 * Where the development assertion key pair lives, and its creation. Apart from
 * assertion.ts so that `npm start`'s launcher can check for the keys without
 * loading jose (about 50 ms before it can start either service).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface AssertionKeyFiles {
  privateKeyFile: string;
  publicKeyFile: string;
}

/** The development key pair under `<dataDir>/keys/`, created on first use (private key readable by the owner only). */
export function assertionKeyFiles(dataDir: string): AssertionKeyFiles {
  return {
    privateKeyFile: `${dataDir}/keys/assertion.private.jwk.json`,
    publicKeyFile: `${dataDir}/keys/assertion.public.jwk.json`,
  };
}

export async function ensureAssertionKeys(files: AssertionKeyFiles): Promise<void> {
  if (existsSync(files.privateKeyFile) && existsSync(files.publicKeyFile)) return;
  const { generateAssertionKeys } = await import('./assertion.js');
  const keys = await generateAssertionKeys();
  mkdirSync(dirname(files.privateKeyFile), { recursive: true });
  mkdirSync(dirname(files.publicKeyFile), { recursive: true });
  writeFileSync(files.privateKeyFile, JSON.stringify(keys.privateJwk), { mode: 0o600 });
  writeFileSync(files.publicKeyFile, JSON.stringify(keys.publicJwk));
}
