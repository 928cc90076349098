export { createMcpServer, type McpServerOptions } from './server.js';
export { knownTags, selectOperations, toolDefinition, toolFields, type ToolDefinition, type ToolFilter } from './tools.js';
