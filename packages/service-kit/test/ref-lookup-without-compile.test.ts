import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { lookupRef, operationTable } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import '../src/service-app.js';
import { validatorSchemaPreprocessor } from '../src/ref-lookup-without-compile.js';

const validatorRequire = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
const { AjvOptions } = validatorRequire('./framework/ajv/options.js') as { AjvOptions: new (options: object) => { preprocessor: object } };
/** The Ajv options the validator gives its preprocessor, for the options the service app passes. */
const preprocessorOptions = new AjvOptions({ formats: {}, serDes: [], validateFormats: true, ajvFormats: { mode: 'full' } }).preprocessor;

type Preprocessor = { ajv: { getSchema(ref: string): unknown }; preProcess(): { apiDoc: typeof openapiDocument } };
const SchemaPreprocessor = validatorSchemaPreprocessor() as unknown as new (apiDoc: unknown, ajvOptions: object, responses: false) => Preprocessor;

describe("the validator's ref resolution while preparing the document", () => {
  it('is replaced by loading the service app', () => {
    expect(validatorSchemaPreprocessor().prototype.resolveSchema.looksUpRefs).toBe(true);
  });

  it('reads each ref from the document without compiling it, and resolves every operation as before', () => {
    const document = structuredClone(openapiDocument);
    const preprocessor = new SchemaPreprocessor(document, preprocessorOptions, false);
    const compiledRefs: string[] = [];
    const getSchema = preprocessor.ajv.getSchema.bind(preprocessor.ajv);
    preprocessor.ajv.getSchema = (ref) => (compiledRefs.push(ref), getSchema(ref));

    const { apiDoc } = preprocessor.preProcess();

    expect(compiledRefs).toEqual([]);
    // A ref resolves to the document's own component object, as the Ajv lookup returned it: not a copy.
    const bodySchemaOf = (doc: unknown) =>
      (doc as { paths: Record<string, { post: { requestBody: { content: Record<string, { schema: { $ref?: string } }> } } }> }).paths[operationTable.minds_createMind.path]!.post.requestBody.content['application/json']!.schema;
    const ref = bodySchemaOf(openapiDocument).$ref!;
    expect(ref).toMatch(/^#\/components\/schemas\//);
    expect(bodySchemaOf(apiDoc)).toBe(lookupRef(apiDoc, ref));
    for (const item of Object.values(apiDoc.paths)) {
      for (const operation of Object.values(item as Record<string, { responses?: Record<string, object> }>)) {
        for (const response of Object.values(operation.responses ?? {})) expect(response).not.toHaveProperty('$ref');
      }
    }
  });
});
