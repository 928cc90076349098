/**
 * express-openapi-validator 5.6 compiles its OpenAPI meta-schema validator at
 * start-up even with `validateApiSpec: false`, which then never calls it: 160
 * ms of the gateway's 2.2 s of start-up CPU (a V8 profile of `npm start`).
 * This contract is linted and tested in CI instead (spec/README). Until the
 * validator skips that work itself, its `OpenAPISchemaValidator` is replaced
 * with one that compiles on the first `validate` call, so a `validateApiSpec:
 * true` user still gets the same checks. Remove this module when upstream
 * stops compiling what it does not use.
 */
import { createRequire } from 'node:module';

interface SchemaValidator {
  validate(document: unknown): { errors: unknown[] };
  /** Whether the meta-schema has been compiled (the lazy one only). */
  readonly compiled?: boolean;
}
type SchemaValidatorClass = (new (options: { version: string; validateApiSpec: boolean }) => SchemaValidator) & { compilesOnFirstUse?: true };

const requireFromHere = createRequire(import.meta.url);
const validatorEntry = requireFromHere.resolve('express-openapi-validator');
/** The module instance the validator's framework loads (module exports are shared per resolved file). */
const schemaValidatorModule = createRequire(validatorEntry)('./framework/openapi.schema.validator.js') as { OpenAPISchemaValidator: SchemaValidatorClass };

export function installLazySpecValidator(): void {
  const Eager = schemaValidatorModule.OpenAPISchemaValidator;
  if (Eager.compilesOnFirstUse) return;
  const Lazy: SchemaValidatorClass = class {
    static compilesOnFirstUse = true as const;
    #compiled: SchemaValidator | undefined;
    constructor(private readonly options: { version: string; validateApiSpec: boolean }) {}
    get compiled() {
      return this.#compiled !== undefined;
    }
    validate(document: unknown) {
      this.#compiled ??= new Eager(this.options);
      return this.#compiled.validate(document);
    }
  };
  schemaValidatorModule.OpenAPISchemaValidator = Lazy;
}

/** For the test: the class the validator will construct, and the original it defers to. */
export function validatorSchemaValidator(): SchemaValidatorClass {
  return schemaValidatorModule.OpenAPISchemaValidator;
}
