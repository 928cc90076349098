/**
 * The check of answers (compiled-response-validation.ts) over real HTTP, on a small document that
 * holds every rule it applies, with express-openapi-validator's own response validation as a second
 * judge: where the module says it judges as that validator does, both must give the same verdict
 * on every answer (spec/DECISIONS.md "Answers that break the contract").
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '@gateway-minds/contract';
import { compileResponseValidation, ResponseContractViolation } from '../src/compiled-response-validation.js';

const json = (schema: object) => ({ 'application/json': { schema } });
const document = {
  openapi: '3.1.0',
  info: { title: 'answers', version: '1' },
  paths: {
    '/things/{thing_id}': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'thing_id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'a thing', content: json({ $ref: '#/components/schemas/Thing' }) },
          '201': { description: 'not JSON', content: { 'text/csv': { schema: { type: 'string' } } } },
          '204': { description: 'nothing' },
          '4XX': { $ref: '#/components/responses/Problem' },
          default: { description: 'anything else', content: json({ $ref: '#/components/schemas/Counted' }) },
        },
      },
    },
    '/plain': {
      get: {
        operationId: 'getPlain',
        responses: {
          '200': { description: 'two JSON media types', content: { ...json({ type: 'object' }), 'application/vnd.list+json': { schema: { type: 'array' } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        additionalProperties: false,
        required: ['thing_id', 'at', 'secret'],
        properties: { thing_id: { type: 'string' }, at: { type: 'string', format: 'date-time' }, secret: { type: 'string', writeOnly: true } },
      },
      Problem: { type: 'object', required: ['title'], properties: { title: { type: 'string' } } },
      Counted: { type: 'object', required: ['count'], properties: { count: { type: 'integer', format: 'int32' } } },
    },
    responses: { Problem: { description: 'a problem', content: json({ $ref: '#/components/schemas/Problem' }) } },
  },
} as unknown as OpenApiDocument;

interface Answer {
  path: string;
  status: number;
  body: unknown;
  contentType?: string;
  /** The request's Accept header. */
  accept?: string;
}
type Verdict = 'sent' | 'refused';
const at = '2026-11-28T10:00:00Z';

/** Each answer, what it shows, and the verdict both judges must give. */
const answers: [string, Answer, Verdict][] = [
  ['an answer its status documents', { path: '/things/a', status: 200, body: { thing_id: 'a', at } }, 'sent'],
  ['a property the schema closes out', { path: '/things/a', status: 200, body: { thing_id: 'a', at, extra: 1 } }, 'refused'],
  ['a date-time that is no date (February 30th)', { path: '/things/a', status: 200, body: { thing_id: 'a', at: '2026-02-30T10:00:00Z' } }, 'refused'],
  ['a writeOnly property, even one the schema lists as required', { path: '/things/a', status: 200, body: { thing_id: 'a', at, secret: 's' } }, 'refused'],
  ['null where a body is documented', { path: '/things/a', status: 200, body: null }, 'refused'],
  ['a body on a status documented without content', { path: '/things/a', status: 204, body: {} }, 'refused'],
  ['a status judged by its class (4XX), through a $ref to a shared response', { path: '/things/a', status: 404, body: { title: 'gone' } }, 'sent'],
  ['a status its class refuses', { path: '/things/a', status: 404, body: {} }, 'refused'],
  ['a status judged by default', { path: '/things/a', status: 302, body: { count: 1 } }, 'sent'],
  ['an int32 out of range (default)', { path: '/things/a', status: 302, body: { count: 2 ** 31 } }, 'refused'],
  ['a status no response documents', { path: '/plain', status: 404, body: {} }, 'refused'],
  ['the media type the answer names', { path: '/plain', status: 200, body: [], contentType: 'application/vnd.list+json' }, 'sent'],
  ['the media type the answer names, refusing', { path: '/plain', status: 200, body: {}, contentType: 'application/vnd.list+json' }, 'refused'],
  ['the first JSON media type when the answer names none', { path: '/plain', status: 200, body: {} }, 'sent'],
  ['a 5xx answer, which is not checked', { path: '/plain', status: 503, body: 'down' }, 'sent'],
];

/**
 * Where the check differs from that validator (spec/DECISIONS.md "Answers that break the
 * contract": "It differs in two places"): each answer with both verdicts.
 */
const differences: [string, Answer, { ours: Verdict; validator: Verdict }][] = [
  ['JSON for a status whose content has no JSON media type, which that validator judges by default', { path: '/things/a', status: 201, body: { count: 1 } }, { ours: 'refused', validator: 'sent' }],
  [
    'a JSON answer judged by the media type it is sent as, not by the one the request accepts',
    { path: '/plain', status: 200, body: {}, accept: 'application/vnd.list+json' },
    { ours: 'sent', validator: 'refused' },
  ],
];
const everyAnswer = [...answers.map(([, answer]) => answer), ...differences.map(([, answer]) => answer)];

/** The status a refused answer comes back with from either app, so that no handler answer is taken for it. */
const REFUSED = 599;

/** An app whose handler gives the answer the `x-answer` header names, after `check` has run. */
function answeringApp(check: RequestHandler[], onRefusal: ErrorRequestHandler): Express {
  const app = express();
  app.use(...check);
  const answer: RequestHandler = (req, res) => {
    const { status, body, contentType } = everyAnswer[Number(req.headers['x-answer'])]!;
    if (contentType) res.setHeader('Content-Type', contentType);
    res.status(status).json(body);
  };
  app.get('/things/:thing_id', answer);
  app.get('/plain', answer);
  app.use(onRefusal);
  return app;
}

const ours = compileResponseValidation(document);
const operationIdOf = (path: string) => (path.startsWith('/things/') ? 'getThing' : 'getPlain');
const ownApp = answeringApp([(req, res, next) => (ours.watch(res, next, operationIdOf(req.path)), next())], (err, _req, res, next) =>
  err instanceof ResponseContractViolation ? res.status(REFUSED).json({ message: err.message, errors: err.errors }) : next(err),
);
const validatorApp = answeringApp(
  OpenApiValidator.middleware({
    apiSpec: structuredClone(document) as never,
    validateRequests: true,
    validateResponses: { allErrors: true },
    validateFormats: true,
    ajvFormats: { mode: 'full' },
  }) as unknown as RequestHandler[],
  (err, _req, res, next) => (err?.status === 500 ? res.status(REFUSED).json({ message: err.message }) : next(err)),
);

const servers: Server[] = [];
const bases: Record<'ours' | 'validator', string> = { ours: '', validator: '' };
beforeAll(async () => {
  for (const [name, app] of [['ours', ownApp], ['validator', validatorApp]] as const) {
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    await new Promise((resolve) => server.once('listening', resolve));
    bases[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
});
afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

async function verdict(judge: keyof typeof bases, index: number): Promise<{ verdict: Verdict; body: string }> {
  const { path, accept } = everyAnswer[index]!;
  const response = await fetch(bases[judge] + path, { headers: { 'x-answer': String(index), ...(accept ? { accept } : {}) } });
  return { verdict: response.status === REFUSED ? 'refused' : 'sent', body: await response.text() };
}

describe('the check of answers, beside express-openapi-validator', () => {
  answers.forEach(([shows, , expected], index) => {
    it(`${shows}: ${expected}, by both`, async () => {
      const [own, validator] = await Promise.all([verdict('ours', index), verdict('validator', index)]);
      expect({ ours: own.verdict, validator: validator.verdict }, `ours: ${own.body}\nvalidator: ${validator.body}`).toEqual({ ours: expected, validator: expected });
    });
  });

  differences.forEach(([shows, , expected], index) => {
    it(`${shows}: ${expected.ours}, where that validator says ${expected.validator}`, async () => {
      const [own, validator] = await Promise.all([verdict('ours', answers.length + index), verdict('validator', answers.length + index)]);
      expect({ ours: own.verdict, validator: validator.verdict }, `ours: ${own.body}\nvalidator: ${validator.body}`).toEqual(expected);
    });
  });

  it('names where the answer breaks its schema', async () => {
    const refused = JSON.parse((await verdict('ours', 1)).body) as { errors: { instancePath: string; message: string }[] };
    expect(refused.errors).toContainEqual({ instancePath: '', message: 'must NOT have additional properties' });
  });

  it('counts every answer it checked and every one it refused, 5xx answers aside', async () => {
    const before = { ...ours.counts };
    for (let index = 0; index < answers.length; index++) await verdict('ours', index);
    const judged = answers.filter(([, answer]) => answer.status < 500);
    expect(ours.counts.checked - before.checked).toBe(judged.length);
    expect(ours.counts.refused - before.refused).toBe(judged.filter(([, , expected]) => expected === 'refused').length);
  });
});
