/**
 * The MCP server: the low-level SDK `Server` with raw JSON Schema tool inputs
 * (tools.ts); each call goes through @gateway-minds/client, so the Bearer
 * header, Idempotency-Keys, read retries and DPoP are the client's.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode as McpErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { APIError, APIConnectionError, createClient, type ClientOptions, type GatewayMindsClient } from '@gateway-minds/client';
import { operationInputs, toCallInput } from '@gateway-minds/client/inputs';
import type { OperationId } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import { selectOperations, toolDefinition, toolFields, type ToolFilter } from './tools.js';

export interface McpServerOptions extends ToolFilter {
  client: ClientOptions | GatewayMindsClient;
  name?: string;
  /** The version in the initialize answer; by default the API version the server speaks (the spec's info.version), as the package's is. */
  version?: string;
}

function errorResult(payload: unknown): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(payload, null, 2) }] };
}

export function createMcpServer(options: McpServerOptions): Server {
  const client = 'transport' in options.client ? options.client : createClient({ retry: { maxRetries: 2 }, ...options.client });
  const operations = selectOperations(options);
  const tools = operations.map(toolDefinition);
  const allowed = new Set<string>(operations);

  const server = new Server({ name: options.name ?? 'gateway-minds', version: options.version ?? openapiDocument.info.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    if (!allowed.has(name)) throw new McpError(McpErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const inputs = operationInputs(name as OperationId);
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const known = new Set([...toolFields(inputs).map((f) => f.name), ...(inputs.body && !inputs.bodyFlattened ? ['body'] : [])]);
    const unknown = Object.keys(args).filter((key) => !known.has(key));
    if (unknown.length) return errorResult({ error: { message: `Unknown arguments for ${name}: ${unknown.join(', ')}` } });
    try {
      const method = client[name as OperationId] as unknown as (input: unknown, options: { signal: AbortSignal }) => Promise<unknown>;
      const data = await method(toCallInput(inputs, args), { signal: extra.signal });
      return {
        content: [{ type: 'text', text: JSON.stringify(data ?? null, null, 2) }],
        ...(data && typeof data === 'object' && !Array.isArray(data) ? { structuredContent: data as Record<string, unknown> } : {}),
      };
    } catch (error) {
      if (error instanceof APIError) {
        return errorResult({
          status: error.status,
          error: error.body,
          ...(error.retryAfter !== undefined ? { retry_after_seconds: error.retryAfter } : {}),
          ...(error.outcomeUnknown ? { outcome_unknown: true, idempotency_key: error.idempotencyKey } : {}),
        });
      }
      if (error instanceof APIConnectionError) return errorResult({ error: { message: error.message }, outcome_unknown: error.outcomeUnknown, idempotency_key: error.idempotencyKey });
      throw error;
    }
  });
  return server;
}
