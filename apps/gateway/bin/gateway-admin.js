#!/usr/bin/env node
// The gateway-admin command, committed so that npm links it at install time, before
// anything is built; the program itself is compiled into ../dist/admin/cli.js.
import { existsSync } from 'node:fs';

const program = new URL('../dist/admin/cli.js', import.meta.url);
if (!existsSync(program)) {
  console.error('gateway-admin is not built yet: run `npm run build` (or `npm start`) at the repository root.');
  process.exit(1);
}
await import(program.href);
