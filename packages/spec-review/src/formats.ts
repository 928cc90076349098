/**
 * Machine-readable renderings of a review: JSON (every change with its check
 * id and level) and GitHub workflow annotations (`::error file=…,line=…::`)
 * placed on the changed lines of the head spec's source files.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve as resolvePath } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { sharedWhere, type Change, type Review, type Severity } from './compare.js';
import { checkOf } from './registry.js';

export interface FlatChange {
  id: string;
  level: Severity;
  /** The operations the change concerns (every operation reaching a changed shared schema). */
  operations: string[];
  where: string;
  message: string;
  /** JSON pointer into the head document (the base one for something removed: `side: 'base'`). */
  pointer: string;
  side?: 'base' | 'head';
}

/** Every change of a review, one entry each, breaking first: operations added and removed, each operation's changes, shared schemas' and the document's. */
export function flatten(review: Review): FlatChange[] {
  const order: Record<Severity, number> = { breaking: 0, warning: 1, info: 2 };
  const flat = (c: Change, operations: string[], where = c.where): FlatChange => ({ id: c.id, level: c.severity, operations, where, message: c.message, pointer: c.pointer, ...(c.side ? { side: c.side } : {}) });
  const changes: FlatChange[] = [
    ...review.added.map((o) => ({ id: 'endpoint-added', level: checkOf('endpoint-added').level, operations: [o.operationId], where: `\`${o.method} ${o.path}\``, message: o.summary ? `operation added: ${o.summary}` : 'operation added', pointer: o.pointer ?? '' })),
    ...review.removals.map((r) => flat(r, [r.operation.operationId])),
    ...review.changed.flatMap((o) => o.changes.map((c) => flat(c, [o.operation.operationId]))),
    ...review.sharedSchemas.flatMap((s) => s.changes.map((c) => flat(c, s.operations, sharedWhere(s, c)))),
    ...review.document.map((c) => flat(c, [])),
  ];
  return changes.sort((a, b) => order[a.level] - order[b.level]);
}

export function renderJson(review: Review, context: Record<string, unknown> = {}): string {
  return `${JSON.stringify(
    {
      ...context,
      breaking: review.breaking.length,
      added: review.added,
      removed: review.removed,
      changes: flatten(review),
    },
    null,
    2,
  )}\n`;
}

export interface SourceLocation {
  file: string;
  line: number;
}

export type Locator = (pointer: string) => SourceLocation | undefined;

/** `%`, CR, LF, `:` and `,` are escaped in workflow command properties and data. */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * GitHub workflow commands, one per breaking change (`::error`) and warning
 * (`::warning`); info changes are left to the Markdown report.
 */
export function renderAnnotations(review: Review, locate: Locator, fallbackFile: string): string {
  const lines: string[] = [];
  for (const change of flatten(review)) {
    if (change.level === 'info') continue;
    const at = locate(change.pointer) ?? { file: fallbackFile, line: 1 };
    const who = change.operations.length === 0 ? '' : change.operations.length <= 3 ? `${change.operations.join(', ')}: ` : `${change.operations.length} operations: `;
    const text = `${who}${change.where}: ${change.message}`.replace(/`/g, '');
    lines.push(`::${change.level === 'breaking' ? 'error' : 'warning'} file=${escapeProperty(at.file)},line=${at.line},title=${escapeProperty(`${change.id} (${change.level})`)}::${escapeData(text)}`);
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

/** One error annotation on the root file when the head spec does not bundle: the bundler's message, for the pull request's checks. */
export function renderBundleFailureAnnotation(specFile: string, bundleError: string): string {
  return `::error file=${escapeProperty(specFile)},line=1,title=${escapeProperty('spec does not bundle')}::${escapeData(bundleError.trim())}\n`;
}

interface Loaded {
  root: Node | null;
  lines: LineCounter;
}

/**
 * Maps a JSON pointer of the bundled document to a line of the source YAML
 * (or JSON) files: follows the pointer from the root file through external
 * `$ref`s; a component the bundler hoisted (`/components/schemas/Pet`) is
 * found as `components/schemas/Pet.yaml` beside the root when the root does
 * not declare it. Lands on the deepest node that exists (the parent of a
 * removed one). File names are relative to `relativeTo`.
 */
export function createLocator(rootFile: string, relativeTo = process.cwd()): Locator {
  const cache = new Map<string, Loaded>();
  const load = (file: string): Loaded | undefined => {
    if (!cache.has(file)) {
      if (!existsSync(file)) return undefined;
      const lines = new LineCounter();
      cache.set(file, { root: parseDocument(readFileSync(file, 'utf8'), { lineCounter: lines }).contents, lines });
    }
    return cache.get(file);
  };
  const lineOf = (loaded: Loaded, node: Node | null) => (node?.range ? loaded.lines.linePos(node.range[0]).line : 1);
  const decode = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

  const walk = (file: string, segments: string[], depth: number): SourceLocation | undefined => {
    const loaded = load(file);
    if (!loaded || depth > 20) return undefined;
    let node = loaded.root;
    let best: SourceLocation = { file: relative(relativeTo, file), line: lineOf(loaded, node) };
    for (let i = 0; i < segments.length; i++) {
      // An external $ref: continue in that file.
      if (isMap(node)) {
        const ref = node.get('$ref');
        if (typeof ref === 'string' && !ref.startsWith('#')) {
          const [target, fragment = ''] = ref.split('#');
          const inner = fragment.split('/').filter(Boolean).map(decode);
          return walk(resolvePath(dirname(file), target!), [...inner, ...segments.slice(i)], depth + 1) ?? best;
        }
      }
      const segment = segments[i]!;
      let next: unknown;
      if (isMap(node)) next = node.get(segment, true);
      else if (isSeq(node)) next = node.get(Number(segment), true);
      if (next === undefined || next === null) return best;
      node = next as Node;
      best = { file: relative(relativeTo, file), line: lineOf(loaded, isScalar(node) || isMap(node) || isSeq(node) ? node : null) };
    }
    return best;
  };

  return (pointer) => {
    const segments = pointer.split('/').slice(1).map(decode);
    const found = walk(rootFile, segments, 0);
    if (segments[0] === 'components' && segments.length >= 3) {
      const rootDoc = load(rootFile);
      const declared = isMap(rootDoc?.root) && rootDoc!.root.getIn(['components', segments[1], segments[2]]) !== undefined;
      if (!declared) {
        for (const extension of ['yaml', 'yml', 'json']) {
          const file = join(dirname(rootFile), 'components', segments[1]!, `${segments[2]}.${extension}`);
          if (existsSync(file)) return walk(file, segments.slice(3), 0);
        }
      }
    }
    return found;
  };
}
