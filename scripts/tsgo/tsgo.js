#!/usr/bin/env node
// `tsgo`: the `tsc` command of this workspace's own typescript, TypeScript 7's native compiler. npm
// links the root's typescript 5.9 as `tsc`, so this runs the command 7.0's package.json declares.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const manifest = require.resolve('typescript/package.json');
const { bin } = require(manifest);
await import(pathToFileURL(join(dirname(manifest), bin.tsc)).href);
