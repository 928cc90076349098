/** --help text, from the spec's summaries, descriptions, tags and schemas. */
import { operationTable, type OperationFacts } from '@gateway-minds/contract';
import { commands, GLOBAL_FLAGS, type Command, type Flag } from './commands.js';

function wrap(text: string, width = 78, indent = ''): string {
  const lines: string[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if ((indent + line + ' ' + word).length > width && line) {
        lines.push(indent + line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    if (line) lines.push(indent + line);
    lines.push('');
  }
  return lines.join('\n').trimEnd();
}

function constraints(flag: Flag): string {
  const s = flag.field.schema;
  const items = (s.items ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  if (s.minimum !== undefined || s.maximum !== undefined) parts.push(`${s.minimum ?? ''}..${s.maximum ?? ''}`);
  if (s.minLength !== undefined || s.maxLength !== undefined) parts.push(`length ${s.minLength ?? 0}..${s.maxLength ?? ''}`);
  if (s['x-max-bytes'] !== undefined) parts.push(`at most ${s['x-max-bytes']} UTF-8 bytes`);
  if (s.pattern && !s.format) parts.push(`pattern ${s.pattern}`);
  if (s.format) parts.push(String(s.format));
  if (s.maxItems !== undefined) parts.push(`at most ${s.maxItems} items`);
  if (items.pattern) parts.push(`each ${items.pattern}`);
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  return parts.length ? ` [${parts.join('; ')}]` : '';
}

function placeholder(flag: Flag): string {
  if (flag.enumValues) return `<${flag.enumValues.join('|')}>`;
  if (flag.kind === 'json') return '<json|@file>';
  if (flag.kind === 'boolean' && !flag.multiple) return '';
  return `<${flag.kind}>`;
}

/** Whether the CLI retries this command by itself: the contract's `automaticRetry` (x-automatic-retry in the spec). */
function retryNote(facts: OperationFacts): string {
  if (facts.automaticRetry) return '    retried (--max-retries)';
  return facts.readOnly ? '    never retried automatically' : '';
}

function security(facts: OperationFacts): string {
  if (facts.security.length === 0) return 'no credential';
  return facts.security.map((s) => (s.scopes.length ? `${s.scheme} (${s.scopes.join(', ')})` : s.scheme)).join(' or ');
}

const globalLines = (skip: readonly string[] = []) =>
  Object.entries(GLOBAL_FLAGS)
    .filter(([name]) => !skip.includes(name))
    .map(([name, spec]) => `  ${`--${name}${spec.type === 'string' ? ' <value>' : ''}`.padEnd(26)} ${spec.help}`)
    .join('\n');

export function mainHelp(): string {
  const byTag = new Map<string, Command[]>();
  for (const command of commands().values()) byTag.set(command.facts.tag, [...(byTag.get(command.facts.tag) ?? []), command]);
  const width = Math.max(...[...commands().keys()].map((k) => k.length)) + 2;
  const sections = [...byTag].map(([tag, list]) => `${tag}:\n${list.map((c) => `  ${c.name.padEnd(width)} ${c.facts.summary}`).join('\n')}`);
  return `Usage: gateway-minds <command> [flags]
       gateway-minds --version   the API version this CLI speaks (the spec's info.version)

Calls the /v1 gateway and the Minds service. Each command is an operation id of
the spec; its flags are the operation's parameters and body properties.
Prints the JSON result (indented on a terminal, one line when piped). On an
error envelope prints code, message, docs_url and request_id to stderr and
exits 1; a usage error exits 2.

${sections.join('\n\n')}

Global flags:
${globalLines()}

Environment: GATEWAY_MINDS_TOKEN, GATEWAY_MINDS_URL, GATEWAY_MINDS_DPOP_KEY.
Run gateway-minds <command> --help for a command's flags. ${Object.keys(operationTable).length} commands.
`;
}

/** A shell word for a value: single-quoted unless it is plainly safe. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A ready-to-paste example of a flag, from the spec's examples: for JSON flags (whose shape the
 * description cannot show) and dates (a date-time's exact form), on a line of its own so that
 * wrapping never splits it.
 */
function exampleLine(flag: Flag): string | undefined {
  if (flag.example === undefined || flag.example === null) return undefined;
  if (flag.kind === 'json') return `      e.g. --${flag.flag} ${shellWord(JSON.stringify(flag.example))}`;
  // Dates only: a UUID example adds nothing, and one for an Idempotency-Key would invite reusing it.
  if (flag.kind === 'string' && /^date/.test(String(flag.field.schema.format)) && typeof flag.example === 'string') return `      e.g. --${flag.flag} ${shellWord(flag.example)}`;
  return undefined;
}

export function commandHelp(command: Command): string {
  const { facts } = command;
  const flagLines = command.flags.map((flag) => {
    const head = `  --${flag.flag}${placeholder(flag) ? ` ${placeholder(flag)}` : ''}`;
    const where = flag.field.in === 'body' ? '' : ` (${flag.field.in})`;
    const required = flag.required ? 'required. ' : '';
    const repeat = flag.multiple ? ' Repeat the flag or pass a JSON array.' : '';
    const generated = flag.field.in === 'header' && !flag.required && flag.field.required ? ' Made by the client when omitted; pass the key of an earlier attempt to retry it.' : '';
    const example = exampleLine(flag);
    return `${head}\n${wrap(`${required}${flag.field.description ?? ''}${where}${generated}${repeat}${constraints(flag)}`, 78, '      ')}${example ? `\n${example}` : ''}`;
  });
  if (command.inputs.body) {
    flagLines.push(`  --body <json|@file>\n      ${command.inputs.bodyFlattened ? 'the whole body as JSON; the flags above override its properties' : 'required: the JSON body'}`);
  }
  if (command.waitStatuses) {
    flagLines.push(`  --wait-for <${command.waitStatuses.join('|')}>\n      poll the Mind until it has this status, showing progress on stderr`);
  }
  return `gateway-minds ${command.name}: ${facts.summary}

${wrap(facts.description)}

  ${facts.method.toUpperCase()} ${facts.path}    credential: ${security(facts)}${facts.readOnly ? '    read-only' : ''}${retryNote(facts)}

Flags:
${flagLines.join('\n') || '  (none)'}

Global flags:
${globalLines(['body', 'wait-for'])}
`;
}
