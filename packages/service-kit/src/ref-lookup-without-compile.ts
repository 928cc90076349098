/**
 * express-openapi-validator 5.6 resolves each `$ref` it meets while preparing
 * the document (`SchemaPreprocessor.resolveSchema`) by asking a private Ajv
 * instance for the compiled validator of that ref and keeping only its
 * `.schema`: the very object the document holds at that pointer. Compiling
 * every component schema just to read it back was 200 ms of the Minds
 * service's 1.6 s of start-up CPU (a V8 profile of its start on an existing
 * data directory). The compiled validators are thrown away: requests are
 * validated by another Ajv instance, compiled per route on first use.
 *
 * Until the validator stops compiling what it only reads, its preprocessor
 * looks the ref up in the document instead (what it already falls back to
 * when Ajv knows no schema for a ref), caching per ref as it did. Remove this
 * module when upstream resolves refs without compiling them.
 */
import { createRequire } from 'node:module';
import { lookupRef } from '@gateway-minds/contract';

interface Preprocessor {
  apiDoc: object;
  resolvedSchemaCache: Map<string, unknown>;
  resolveSchema(schema: unknown): unknown;
}
type ResolveSchema = Preprocessor['resolveSchema'] & { looksUpRefs?: true };

const requireFromHere = createRequire(import.meta.url);
const validatorEntry = requireFromHere.resolve('express-openapi-validator');
/** The preprocessor class the validator itself loads (module exports are shared per resolved file). */
const preprocessorModule = createRequire(validatorEntry)('./middlewares/parsers/schema.preprocessor.js') as {
  SchemaPreprocessor: { prototype: Preprocessor & { resolveSchema: ResolveSchema } };
};

export function installRefLookupWithoutCompile(): void {
  const prototype = preprocessorModule.SchemaPreprocessor.prototype;
  if (prototype.resolveSchema.looksUpRefs) return;
  const lookingUp: ResolveSchema = function (this: Preprocessor, schema: unknown) {
    if (!schema) return null;
    const ref = (schema as { $ref?: unknown }).$ref;
    if (typeof ref !== 'string') return schema;
    if (!this.resolvedSchemaCache.has(ref)) this.resolvedSchemaCache.set(ref, lookupRef(this.apiDoc, ref));
    return this.resolvedSchemaCache.get(ref);
  };
  lookingUp.looksUpRefs = true;
  prototype.resolveSchema = lookingUp;
}

/** For the test: the preprocessor class the validator will construct. */
export function validatorSchemaPreprocessor(): { prototype: { resolveSchema: ResolveSchema } } {
  return preprocessorModule.SchemaPreprocessor;
}
