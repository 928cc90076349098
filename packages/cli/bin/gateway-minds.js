#!/usr/bin/env node
// The gateway-minds command, committed so that npm links it at install time, before
// anything is built; the program itself is compiled into ../dist/bin.js.
import { existsSync } from 'node:fs';

const program = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(program)) {
  console.error('gateway-minds is not built yet: run `npm run build` (or `npm start`) at the repository root.');
  process.exit(1);
}
await import(program.href);
