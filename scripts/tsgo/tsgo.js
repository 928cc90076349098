#!/usr/bin/env node
// `tsgo`: this workspace's own typescript, TypeScript 7, whose `tsc` is the native compiler. Its
// package exports no path to its command, so the command is found beside its package.json.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const typescript = dirname(createRequire(import.meta.url).resolve('typescript/package.json'));
await import(pathToFileURL(join(typescript, 'lib/tsc.js')).href);
