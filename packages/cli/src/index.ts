export { run, describeError, DEFAULT_BASE_URL, type Io, type Output } from './cli.js';
export { commands, flagCollisions, GLOBAL_FLAGS, kebab, type Command, type Flag, type FlagKind } from './commands.js';
export { commandHelp, mainHelp } from './help.js';
