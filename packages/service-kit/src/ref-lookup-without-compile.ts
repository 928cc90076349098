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
 * when Ajv knows no schema for a ref), caching per ref as it did. An internal
 * ref that points nowhere now fails the start instead of being skipped; the
 * contract's lint already refuses one. Remove this module when upstream
 * resolves refs without compiling them.
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
  const original = prototype.resolveSchema;
  const lookingUp: ResolveSchema = function (this: Preprocessor, schema: unknown) {
    const ref = (schema as { $ref?: unknown } | null | undefined)?.$ref;
    // Anything but an internal ref (no ref, or one into another file) goes the validator's own way.
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return original.call(this, schema);
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
