/**
 * `spec-review <base> <head>` on files: OpenAPI 3.0 and 3.1, YAML and JSON, split across files through
 * `$ref`; `--output` writes the format `--format` names; the exit status says whether something breaks.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../src/bin.js';

const dir = mkdtempSync(join(tmpdir(), 'spec-review-bin-'));
const file = (name: string) => join(dir, name);

beforeAll(() => {
  mkdirSync(file('base/schemas'), { recursive: true });
  // The base: OpenAPI 3.0, YAML, its schema in another file (JSON).
  writeFileSync(file('base/openapi.yaml'), 'openapi: 3.0.3\ninfo: {title: Pets, version: 1.0.0}\npaths:\n  /pets:\n    post:\n      operationId: createPet\n      requestBody:\n        required: true\n        content:\n          application/json:\n            schema: {$ref: "schemas/Pet.json"}\n      responses:\n        "201": {description: created}\n');
  writeFileSync(file('base/schemas/Pet.json'), JSON.stringify({ type: 'object', properties: { name: { type: 'string', maxLength: 80, nullable: true } } }, null, 2));
  // The head: OpenAPI 3.1, JSON, one file: `name` is shorter and no longer nullable, and a description changed.
  writeFileSync(
    file('head.json'),
    JSON.stringify(
      { openapi: '3.1.0', info: { title: 'Pets', version: '1.0.0' }, paths: { '/pets': { post: { operationId: 'createPet', description: 'Adds a pet.', requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string', maxLength: 40 } } } } } }, responses: { '201': { description: 'created' } } } } } },
      null,
      2,
    ),
  );
  writeFileSync(file('not-openapi.yaml'), 'swagger: "2.0"\ninfo: {title: old, version: "1"}\npaths: {}\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('spec-review <base> <head>', () => {
  it('--format json --output writes JSON there: every change with its id, level, file and line; exit 1 on a breaking change', async () => {
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await main([file('base/openapi.yaml'), file('head.json'), '--format', 'json', '--output', file('report.json')])).toBe(1);
      expect(stdout).not.toHaveBeenCalled();
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
    const report = JSON.parse(readFileSync(file('report.json'), 'utf8'));
    const ids = report.changes.map((c: { id: string }) => c.id).sort();
    // The bundler hoists schemas/Pet.json into components (`Pet`), which the head no longer has.
    expect(ids).toEqual(['api-description-changed', 'api-document-changed', 'api-schema-removed', 'request-became-not-nullable', 'request-max-length-decreased']);
    const shorter = report.changes.find((c: { id: string }) => c.id === 'request-max-length-decreased');
    expect(shorter).toMatchObject({ level: 'breaking', operations: ['createPet'], file: relative(process.cwd(), file('head.json')), pointer: '/paths/~1pets/post/requestBody/content/application~1json/schema/properties/name/maxLength' });
    expect(shorter.line).toBeGreaterThan(1);
  });

  it('--format markdown --output writes the Markdown report', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await main([file('base/openapi.yaml'), file('head.json'), '--output', file('report.md'), '--fail-on', 'none'])).toBe(0);
    } finally {
      stderr.mockRestore();
    }
    expect(readFileSync(file('report.md'), 'utf8')).toMatch(/^## Spec review\n[\s\S]*`request-max-length-decreased`/);
  });

  it('a document that is not OpenAPI 3 is a usage error (exit 2)', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await main([file('not-openapi.yaml'), file('head.json')])).toBe(2);
      expect(stderr.mock.calls.flat().join('\n')).toMatch(/not an OpenAPI 3\.0 or 3\.1 document/);
    } finally {
      stderr.mockRestore();
    }
  });

  it('runs as the installed command (bin/spec-review.js, TypeScript through tsx): exit 1 and the breaking change in its report', async () => {
    const bin = fileURLToPath(new URL('../bin/spec-review.js', import.meta.url));
    const spawned = spawnSync(process.execPath, [bin, file('base/openapi.yaml'), file('head.json'), '--format', 'json'], { encoding: 'utf8' });
    expect(spawned.status, spawned.stderr).toBe(1);
    const report = JSON.parse(spawned.stdout) as { breaking: { id: string }[] };
    expect(report.breaking.map((change) => change.id)).toContain('request-max-length-decreased');
  });
});
