/**
 * Machine-readable renderings of a review: JSON (every change with its check id, level, operations,
 * file, line and JSON pointer, and every lint problem with its location) and GitHub workflow
 * annotations (`::error file=…,line=…::`) placed on the changed lines of the head spec's source
 * files; for something removed, on the nearest line still there at that place.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve as resolvePath } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair } from 'yaml';
import { sharedWhere, type Change, type Review, type Severity } from './compare.js';
import { pointerSegments } from '@gateway-minds/contract/json-pointer';
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

/** A lint problem (redocly lint's, or any linter's) with where it is. */
export interface LintProblem {
  severity: string;
  ruleId: string;
  message: string;
  /** `file:line pointer`, for people. */
  location: string;
  file?: string;
  line?: number;
  pointer?: string;
}

export interface LintSummary {
  errors: number;
  warnings: number;
  problems: LintProblem[];
}

export interface JsonOptions {
  /** Maps each change's pointer to a file and line (createLocator). */
  locate?: Locator;
  lint?: LintSummary;
  /** Fields put first: base, head, commits, a version preview. */
  context?: Record<string, unknown>;
}

/**
 * The review as JSON: every change (id, level, operations, file, line, JSON pointer, where, message),
 * the breaking ones again as a list, a count per level, operations added and removed, and every lint
 * problem with its location.
 */
export function renderJson(review: Review, options: JsonOptions = {}): string {
  const changes = flatten(review).map((c) => {
    const at = options.locate?.(c.pointer, c.side);
    return { id: c.id, level: c.level, operations: c.operations, file: at?.file ?? null, line: at?.line ?? null, pointer: c.pointer, ...(c.side === 'base' ? { side: 'base' } : {}), where: c.where, message: c.message };
  });
  const count = (level: Severity) => changes.filter((c) => c.level === level).length;
  return `${JSON.stringify(
    {
      ...options.context,
      summary: { breaking: count('breaking'), warning: count('warning'), info: count('info'), added: review.added.length, removed: review.removed.length, changed: review.changed.length },
      breaking: changes.filter((c) => c.level === 'breaking'),
      changes,
      added: review.added,
      removed: review.removed,
      ...(options.lint ? { lint: options.lint } : {}),
    },
    null,
    2,
  )}\n`;
}

export interface SourceLocation {
  file: string;
  line: number;
}

/** A pointer into the head document (or, `side: 'base'`, into the base one for something removed) to a line of the head's source files. */
export type Locator = (pointer: string, side?: 'base' | 'head') => SourceLocation | undefined;

/** `%`, CR, LF, `:` and `,` are escaped in workflow command properties and data. */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export interface AnnotationOptions {
  /** Breaking changes a reviewer acknowledged (the label `breaking-change-accepted`): annotated as warnings, not errors. */
  acknowledged?: boolean;
}

/**
 * GitHub workflow commands, one per breaking change (`::error`, or `::warning` once acknowledged)
 * and warning (`::warning`); info changes are left to the Markdown report.
 */
export function renderAnnotations(review: Review, locate: Locator, fallbackFile: string, options: AnnotationOptions = {}): string {
  const lines: string[] = [];
  for (const change of flatten(review)) {
    if (change.level === 'info') continue;
    const at = locate(change.pointer, change.side) ?? { file: fallbackFile, line: 1 };
    const who = change.operations.length === 0 ? '' : change.operations.length <= 3 ? `${change.operations.join(', ')}: ` : `${change.operations.length} operations: `;
    const text = `${who}${change.where}: ${change.message}`.replace(/`/g, '');
    const command = change.level === 'breaking' && !options.acknowledged ? 'error' : 'warning';
    const title = change.level === 'breaking' && options.acknowledged ? `${change.id} (breaking, acknowledged)` : `${change.id} (${change.level})`;
    lines.push(`::${command} file=${escapeProperty(at.file)},line=${at.line},title=${escapeProperty(title)}::${escapeData(text)}`);
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

interface Walked {
  at: SourceLocation;
  /** Where the walk stopped short: the map or sequence in which the next segment is missing, and that segment's index in the pointer. */
  missing?: { node: Node; file: string; loaded: Loaded; index: number };
}

export interface LocatorOptions {
  /** The base document (bundled), to place a removal: it gives the removed node's neighbours. */
  base?: object;
}

/**
 * Maps a JSON pointer of the bundled document to a line of the source YAML (or JSON) files: follows
 * the pointer from the root file through external `$ref`s; a component the bundler hoisted
 * (`/components/schemas/Pet`) is found as `components/schemas/Pet.yaml` beside the root when the root
 * does not declare it. For something removed (`side: 'base'`), it lands on the nearest line still
 * there at that place: the sibling that followed it in the base (now in its place), else the one
 * before it, else the parent's key. File names are relative to `relativeTo`.
 */
export function createLocator(rootFile: string, relativeTo = process.cwd(), options: LocatorOptions = {}): Locator {
  const cache = new Map<string, Loaded>();
  const load = (file: string): Loaded | undefined => {
    if (!cache.has(file)) {
      if (!existsSync(file)) return undefined;
      const lines = new LineCounter();
      cache.set(file, { root: parseDocument(readFileSync(file, 'utf8'), { lineCounter: lines }).contents, lines });
    }
    return cache.get(file);
  };
  const lineAt = (loaded: Loaded, offset: number | undefined) => (offset === undefined ? 1 : loaded.lines.linePos(offset).line);
  const lineOf = (loaded: Loaded, node: Node | null) => lineAt(loaded, node?.range?.[0]);

  /** `origin[i]` is the index in the original pointer of `segments[i]` (-1 for segments a $ref fragment added). */
  const walk = (file: string, segments: string[], origin: number[], depth: number): Walked | undefined => {
    const loaded = load(file);
    if (!loaded || depth > 20) return undefined;
    let node = loaded.root;
    let best: SourceLocation = { file: relative(relativeTo, file), line: lineOf(loaded, node) };
    for (let i = 0; i < segments.length; i++) {
      if (isMap(node)) {
        const ref = node.get('$ref');
        if (typeof ref === 'string' && !ref.startsWith('#')) {
          const [target, fragment = ''] = ref.split('#');
          // A fragment that is not a JSON pointer (a plain-name anchor) names no key to walk.
          const inner = fragment.startsWith('/') ? pointerSegments(`#${fragment}`) : [];
          return walk(resolvePath(dirname(file), target!), [...inner, ...segments.slice(i)], [...inner.map(() => -1), ...origin.slice(i)], depth + 1) ?? { at: best };
        }
      }
      const segment = segments[i]!;
      let next: unknown;
      let keyLine: number | undefined;
      if (isMap(node)) {
        const pair = node.items.find((p: Pair) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === segment);
        next = pair?.value;
        keyLine = isScalar(pair?.key) ? lineOf(loaded, pair.key) : undefined;
      } else if (isSeq(node)) next = node.get(Number(segment), true);
      if (next === undefined || next === null) return { at: best, ...(node && (isMap(node) || isSeq(node)) ? { missing: { node, file, loaded, index: origin[i]! } } : {}) };
      node = next as Node;
      best = { file: relative(relativeTo, file), line: keyLine ?? lineOf(loaded, isScalar(node) || isMap(node) || isSeq(node) ? node : null) };
    }
    return { at: best };
  };

  /** Where something removed was: its base neighbours that the head still has. */
  const nearest = (walked: Walked, segments: string[]): SourceLocation => {
    const { missing } = walked;
    if (!missing || missing.index < 0 || !options.base) return walked.at;
    const parent = segments.slice(0, missing.index).reduce<unknown>((n, k) => (n && typeof n === 'object' ? (n as Record<string, unknown>)[k] : undefined), options.base);
    const removed = segments[missing.index]!;
    const at = (line: number) => ({ file: relative(relativeTo, missing.file), line });
    if (isMap(missing.node) && parent && typeof parent === 'object' && !Array.isArray(parent)) {
      const keys = Object.keys(parent);
      const index = keys.indexOf(removed);
      const keyLine = (key: string) => {
        const pair = (missing.node as { items: Pair[] }).items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === key);
        return pair && isScalar(pair.key) ? lineOf(missing.loaded, pair.key) : undefined;
      };
      for (const key of [...keys.slice(index + 1), ...keys.slice(0, Math.max(index, 0)).reverse()]) {
        const line = keyLine(key);
        if (line !== undefined) return at(line);
      }
    }
    if (isSeq(missing.node)) {
      const items = missing.node.items as Node[];
      const item = items[Math.min(Number(removed), items.length - 1)];
      if (item) return at(lineOf(missing.loaded, item));
    }
    return walked.at;
  };

  return (pointer, side = 'head') => {
    const segments = pointerSegments(pointer);
    const origin = segments.map((_, i) => i);
    let walked = walk(rootFile, segments, origin, 0);
    if (segments[0] === 'components' && segments.length >= 3) {
      const rootDoc = load(rootFile);
      const declared = isMap(rootDoc?.root) && rootDoc!.root.getIn(['components', segments[1], segments[2]]) !== undefined;
      if (!declared) {
        for (const extension of ['yaml', 'yml', 'json']) {
          const file = join(dirname(rootFile), 'components', segments[1]!, `${segments[2]}.${extension}`);
          if (existsSync(file)) {
            walked = walk(file, segments.slice(3), origin.slice(3), 0);
            break;
          }
        }
      }
    }
    if (!walked) return undefined;
    return side === 'base' ? nearest(walked, segments) : walked.at;
  };
}
