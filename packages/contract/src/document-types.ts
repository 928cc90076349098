/** The parts of an OpenAPI 3.1 document this repository reads. */
export type JsonSchema = { [keyword: string]: unknown };

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
  $ref?: string;
  [extension: `x-${string}`]: unknown;
}

export interface OpenApiMediaType {
  schema?: JsonSchema;
  examples?: Record<string, { summary?: string; value?: unknown; $ref?: string }>;
}

export interface OpenApiResponse {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, OpenApiMediaType>;
  $ref?: string;
}

export interface OpenApiOperation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, OpenApiMediaType>; $ref?: string };
  responses: Record<string, OpenApiResponse>;
  [extension: `x-${string}`]: unknown;
}

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';
export const httpMethods: readonly HttpMethod[] = ['get', 'put', 'post', 'delete', 'patch'];

export type OpenApiPathItem = { parameters?: OpenApiParameter[] } & Partial<Record<HttpMethod, OpenApiOperation>>;

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; [key: string]: unknown };
  paths: Record<string, OpenApiPathItem>;
  components?: {
    schemas?: Record<string, JsonSchema>;
    parameters?: Record<string, OpenApiParameter>;
    responses?: Record<string, OpenApiResponse>;
    securitySchemes?: Record<string, JsonSchema>;
    [section: string]: unknown;
  };
  [key: string]: unknown;
}
