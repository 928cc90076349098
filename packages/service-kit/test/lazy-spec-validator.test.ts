import { describe, expect, it } from 'vitest';
import { openapiDocument } from '@gateway-minds/contract/document';
import '../src/service-app.js';
import { validatorSchemaValidator } from '../src/lazy-spec-validator.js';

describe("the validator's OpenAPI meta-schema validator", () => {
  const SchemaValidator = validatorSchemaValidator();

  it('is replaced by loading the service app, and costs nothing until used', () => {
    expect(SchemaValidator.compilesOnFirstUse).toBe(true);
    expect(new SchemaValidator({ version: '3.1.0', validateApiSpec: false }).compiled).toBe(false);
  });

  it('still checks a document when asked to, as the eager one did', () => {
    const validator = new SchemaValidator({ version: openapiDocument.openapi, validateApiSpec: true });
    expect(validator.validate(openapiDocument).errors).toEqual([]);
    expect(validator.compiled).toBe(true);
    expect(validator.validate({ openapi: openapiDocument.openapi, paths: {} }).errors).toContainEqual(
      expect.objectContaining({ params: { missingProperty: 'info' } }),
    );
  });
});
