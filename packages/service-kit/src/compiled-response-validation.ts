/**
 * The check of a handler's JSON answer against its operation's documented responses, owned here
 * rather than asked of express-openapi-validator (spec/DECISIONS.md "Answers that break the
 * contract" says when it runs and what the caller gets).
 *
 * That validator compiles every status of every operation as its own schema with the whole
 * document beside it, so each component a response reaches (the error envelope and its catalog of
 * codes, in nearly every answer) is compiled again for every status of every operation, once per
 * process; and it finds the operation again by walking every route on every request. Here one Ajv
 * holds the app's document as one schema: a response's schema is compiled on its first answer, by
 * JSON pointer into that document, and every component it reaches is compiled once for all of
 * them (`inlineRefs: false`). Apps of one process built from the same document share it.
 *
 * Which schema judges an answer, as that validator chooses it:
 * - the status written exactly, else its class (`4XX`), else `default`; none of them is a violation;
 * - a response with no `content` allows no body; otherwise the media type is the answer's own
 *   Content-Type when the response lists it, else the response's first JSON media type;
 * - an answer with no body, or `null`, where content is documented is a violation;
 * - a `writeOnly` property is refused in an answer and is not required there;
 * - formats are checked in full (ajv-formats `full`, and the OpenAPI format registry's numeric ones).
 * It differs in two places: JSON sent for a status whose documented content has no JSON media type
 * is a violation (that validator skips such a status and falls back to `4XX` or `default`), and the
 * request's Accept plays no part (the answer's Content-Type is what is sent).
 *
 * Only answers given with `res.json` are checked, and none with a 5xx status (a 500 is already the
 * server's failure).
 */
import type { NextFunction, Response } from 'express';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { followRefs, followRefsFrom, httpMethods, uriFragmentOf, type OpenApiDocument } from '@gateway-minds/contract';
import { sharedInProcess } from './shared-in-process.js';

/** A handler's answer that its operation's documented responses do not allow. */
export class ResponseContractViolation extends Error {
  constructor(
    message: string,
    readonly operationId: string,
    /** The status the handler answered with (not `status`, which error handlers read as the error's own). */
    readonly answeredStatus: number,
    readonly errors: readonly Pick<ErrorObject, 'instancePath' | 'message'>[] = [],
  ) {
    super(message);
    this.name = 'ResponseContractViolation';
  }
}

export interface CompiledResponseValidation {
  /** Checks the request's next `res.json` answer; a violation goes to `next` instead of the client. */
  watch(res: Response, next: NextFunction, operationId: string): void;
  /** Answers checked and answers refused, since start (tests read these). */
  readonly counts: { checked: number; refused: number };
}

/** The id the app's document has as one schema of the Ajv; every `#/…` `$ref` in it resolves against it. */
const DOCUMENT_ID = 'urn:gateway-minds:contract';

/** The OpenAPI Format Registry's formats that ajv-formats lacks, as express-openapi-validator checks them. */
const openApiFormats = {
  int32: { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n <= 2 ** 31 - 1 },
  int64: { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 63) && n <= 2 ** 63 - 1 },
  float: { type: 'number', validate: (n: number) => n === 0 || (Math.abs(n) >= 2 ** -126 && Math.abs(n) <= (2 - 2 ** -23) * 2 ** 127) },
  double: { type: 'number', validate: () => true },
  byte: { type: 'string', validate: (s: string) => s.length % 4 === 0 && /^[A-Za-z0-9+/]*(=|==)?$/.test(s) },
  binary: { type: 'string', validate: () => true },
  password: { type: 'string', validate: () => true },
  'media-range': { type: 'string', validate: () => true },
} as const;

function responseAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, strictNumbers: true, strictTuples: true, allowUnionTypes: false, validateSchema: false, allErrors: true, inlineRefs: false });
  addFormats.default(ajv, { mode: 'full' });
  for (const [name, format] of Object.entries(openApiFormats)) ajv.addFormat(name, format as never);
  // Ajv reads writeOnly as an annotation; in an answer the property must not be there at all.
  ajv.removeKeyword('writeOnly');
  ajv.addKeyword({ keyword: 'writeOnly', schemaType: 'boolean', validate: (writeOnly: boolean) => !writeOnly, error: { message: 'is write-only' } });
  return ajv;
}

type JsonObject = Record<string, unknown>;

/** Takes out of every `required` list the properties that are `writeOnly`: an answer leaves them out. */
function writeOnlyNotRequired(document: OpenApiDocument, node: unknown): void {
  if (Array.isArray(node)) return node.forEach((item) => writeOnlyNotRequired(document, item));
  if (!node || typeof node !== 'object') return;
  const schema = node as JsonObject;
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (Array.isArray(schema.required) && properties && typeof properties === 'object') {
    schema.required = schema.required.filter((name) => !(followRefs(document, properties[name] as JsonObject | undefined) as JsonObject | undefined)?.writeOnly);
  }
  for (const value of Object.values(schema)) writeOnlyNotRequired(document, value);
}

const jsonMediaType = /^[\w.+-]+\/(?:[\w.+-]+\+)?json$/;
const mediaTypeOf = (contentType: string) => contentType.split(';')[0]!.trim().toLowerCase();

interface DocumentedResponse {
  /** Where the response object is in the document (its `$ref`s followed), as reference tokens. */
  segments: readonly string[];
  /** Its JSON media types as written, and whether each has a schema; undefined when it documents no content. */
  jsonContent: { mediaType: string; hasSchema: boolean }[] | undefined;
}

/** One document's compiled response schemas, shared by the apps of a process built from it. */
class DocumentResponses {
  private readonly ajv = responseAjv();
  private readonly responsesOf = new Map<string, Record<string, DocumentedResponse>>();
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(document: OpenApiDocument) {
    writeOnlyNotRequired(document, document.components);
    writeOnlyNotRequired(document, document.paths);
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: document.components, paths: document.paths });
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of httpMethods) {
        const operation = item[method];
        if (!operation?.operationId) continue;
        const responses: Record<string, DocumentedResponse> = {};
        for (const [status, written] of Object.entries(operation.responses ?? {})) {
          const { segments, node } = followRefsFrom(document, ['paths', path, method, 'responses', status], written);
          const content = (node as JsonObject).content as Record<string, { schema?: unknown }> | undefined;
          const jsonContent = content && Object.entries(content).filter(([type]) => jsonMediaType.test(mediaTypeOf(type)));
          responses[status] = { segments, jsonContent: jsonContent?.map(([mediaType, { schema }]) => ({ mediaType, hasSchema: schema !== undefined })) };
        }
        this.responsesOf.set(operation.operationId, responses);
      }
    }
  }

  /** Why `body` is not an answer `operationId` may give with `status` and this Content-Type; undefined when it is one. */
  violation(operationId: string, status: number, contentType: string | undefined, body: unknown): ResponseContractViolation | undefined {
    const refuse = (message: string, errors?: ErrorObject[]) => new ResponseContractViolation(message, operationId, status, errors?.map(({ instancePath, message }) => ({ instancePath, message })));
    const responses = this.responsesOf.get(operationId) ?? {};
    const response = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    if (!response) return refuse(`no response is documented for status ${status}`);
    if (!response.jsonContent) return body === undefined ? undefined : refuse('the response documents no body');
    const sent = contentType === undefined ? undefined : mediaTypeOf(contentType);
    const content = response.jsonContent.find(({ mediaType }) => mediaTypeOf(mediaType) === sent) ?? response.jsonContent[0];
    if (!content) return refuse('the response documents no JSON body');
    if (body === undefined || body === null) return refuse('the response documents a body and none was given');
    if (!content.hasSchema) return undefined;
    const validate = this.validatorFor([...response.segments, 'content', content.mediaType, 'schema']);
    if (validate(body)) return undefined;
    return refuse(this.ajv.errorsText(validate.errors, { dataVar: 'response' }), validate.errors ?? []);
  }

  /** The schema at these reference tokens of the document, compiled on its first use. */
  private validatorFor(segments: readonly string[]): ValidateFunction {
    const fragment = uriFragmentOf(segments);
    let validate = this.validators.get(fragment);
    if (!validate) {
      validate = this.ajv.getSchema(DOCUMENT_ID + fragment);
      if (!validate) throw new Error(`no schema at ${fragment}`);
      this.validators.set(fragment, validate);
    }
    return validate;
  }
}

/** Compiled documents of this process, by the document they were compiled from. */
const compiledDocuments = sharedInProcess<DocumentResponses>(8);

/** `document` is the app's own document (its operations only). Nothing is compiled before the first answer. */
export function compileResponseValidation(document: OpenApiDocument): CompiledResponseValidation {
  let responses: DocumentResponses | undefined;
  const counts = { checked: 0, refused: 0 };
  function watch(res: Response, next: NextFunction, operationId: string): void {
    const original = res.json;
    res.json = function checkedJson(this: Response, body: unknown) {
      res.json = original;
      if (res.headersSent) return this;
      if (res.statusCode >= 500) return original.call(this, body);
      responses ??= compiledDocuments(document, () => new DocumentResponses(structuredClone(document))).value;
      counts.checked++;
      const contentType = res.getHeader('content-type');
      const violation = responses.violation(operationId, res.statusCode, typeof contentType === 'string' ? contentType : undefined, body);
      if (!violation) return original.call(this, body);
      counts.refused++;
      next(violation);
      return this;
    };
  }
  return { watch, counts };
}
