#!/usr/bin/env node
// The package is TypeScript run in place (it is not built): tsx loads src/bin.ts. The contract's
// JSON-pointer module is loaded from source too (its `@gateway-minds/source` export condition), so
// the review runs where the contract was never built.
// (Node's `module.register`, not its newer synchronous `registerHooks`.)
import { register as registerModuleHook } from 'node:module';
import { register as registerTsx } from 'tsx/esm/api';

registerModuleHook('data:text/javascript,export function resolve(specifier, context, next) { return next(specifier, { ...context, conditions: [...context.conditions, "@gateway-minds/source"] }); }');
registerTsx();
const { main } = await import('../src/bin.ts');
process.exitCode = await main(process.argv.slice(2));
