#!/usr/bin/env node
// The package is TypeScript run in place (it is not built): tsx loads src/bin.ts.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/bin.ts');
process.exitCode = await main(process.argv.slice(2));
