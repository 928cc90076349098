/**
 * The body of GET /v1/openapi.json: a valid OpenAPI 3.1 document of the operations the
 * gateway serves now, cut from the published spec. Everything in it is read from the
 * contract; this module only chooses which operations and which of their fields
 * (spec/DECISIONS.md, "The openapi.json body").
 */
import { dereference, type OperationFacts, type Schemas } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';

type ServedDocument = Schemas['ServedOperations'];
type ServedPathItem = Schemas['ServedPathItem'];
type ServedOperation = Schemas['ServedOperation'];
type ServedPathParameter = Schemas['ServedPathParameter'];

interface SpecParameter {
  name: string;
  in: string;
  description: string;
  schema: Record<string, unknown>;
}
interface SpecOperation {
  description: string;
  parameters?: SpecParameter[];
  responses: Record<string, { description: string }>;
}
interface SpecPathItem {
  parameters?: SpecParameter[];
}

const resolved = dereference(openapiDocument) as unknown as {
  info: { title: string; description: string; version: string; license: { name: string; identifier: string } };
  tags: { name: string; description: string }[];
  paths: Record<string, SpecPathItem & Record<string, SpecOperation>>;
  components: { securitySchemes: Record<string, { type: string; scheme: string; bearerFormat: string; description: string }> };
};

const parameterSchemaKeys = ['type', 'format', 'pattern', 'minLength', 'maxLength'] as const;

/** A path parameter as the served document writes it: the spec's, with its string schema's own keywords. */
function servedParameter(parameter: SpecParameter): ServedPathParameter {
  const schema = Object.fromEntries(parameterSchemaKeys.filter((key) => key in parameter.schema).map((key) => [key, parameter.schema[key]]));
  return { name: parameter.name, in: 'path', required: true, description: parameter.description, schema: schema as ServedPathParameter['schema'] };
}

/** The path parameters of `operation`, declared on the path item or on the operation. */
function pathParameters(operation: OperationFacts): ServedPathParameter[] {
  const item = resolved.paths[operation.path]!;
  const declared = [...(item.parameters ?? []), ...(item[operation.method]!.parameters ?? [])].filter((p) => p.in === 'path');
  return declared.map(servedParameter);
}

function servedOperation(operation: OperationFacts): ServedOperation {
  const spec = resolved.paths[operation.path]![operation.method]!;
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: spec.description,
    tags: [operation.tag],
    security: operation.security.map((requirement) => ({ [requirement.scheme]: [...requirement.scopes] })),
    responses: Object.fromEntries(Object.entries(spec.responses).map(([status, response]) => [status, { description: response.description }])),
  };
}

/** The served document listing `operations` (in contract order), for a gateway at `publicBaseUrl`. */
export function servedDocument(operations: readonly OperationFacts[], publicBaseUrl: string): ServedDocument {
  const paths: Record<string, ServedPathItem> = {};
  for (const operation of operations) {
    const item = (paths[operation.path] ??= {});
    const parameters = pathParameters(operation);
    if (parameters.length > 0) item.parameters = parameters;
    item[operation.method as 'get'] = servedOperation(operation);
  }
  const tagsUsed = new Set(operations.map((o) => o.tag));
  const schemesUsed = new Set(operations.flatMap((o) => o.security.map((s) => s.scheme)));
  const { title, description, version, license } = resolved.info;
  return {
    openapi: openapiDocument.openapi as ServedDocument['openapi'],
    info: { title, description, version, license: { name: license.name, identifier: license.identifier } },
    servers: [{ url: publicBaseUrl }],
    tags: resolved.tags.filter((t) => tagsUsed.has(t.name)).map(({ name, description }) => ({ name, description })),
    paths,
    components: {
      securitySchemes: Object.fromEntries(
        Object.entries(resolved.components.securitySchemes)
          .filter(([name]) => schemesUsed.has(name))
          .map(([name, { scheme, bearerFormat, description }]) => [name, { type: 'http', scheme: scheme as 'bearer', bearerFormat, description }]),
      ),
    },
  };
}
