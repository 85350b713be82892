// `cardwright mcp`: a Model Context Protocol server on stdio, for AI agents. It renders locally by
// default, or calls a remote cardwright when CARDWRIGHT_URL and CARDWRIGHT_API_KEY are set.
//
// It uses the SDK's protocol-level Server rather than McpServer because McpServer wants zod schemas:
// here the tool schema is the API's JSON Schema itself, and arguments are checked by the API's own
// validation, so agents get the API's fields and the API's error messages.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadCommandConfig, type Config } from '../config.js';
import { packageVersion } from '../version.js';
import type { CardBackend } from './backend.js';
import { renderCards } from './render-tool.js';
import { ToolError, toolErrorText } from './tool-errors.js';
import { LocalBackend } from './local-backend.js';
import { RemoteBackend } from './remote-backend.js';
import { batchToolName, renderToolName, themesToolName, toolDefinitions } from './tools.js';
import { renderBatch } from './batch-tool.js';

/** A remote cardwright when CARDWRIGHT_URL and CARDWRIGHT_API_KEY are set, else this process. */
export function backendFromConfig(config: Config): CardBackend {
  return config.remoteService ? new RemoteBackend(config.remoteService.url, config.remoteService.apiKey) : new LocalBackend(config);
}

export async function runMcpServer(): Promise<void> {
  const backend = backendFromConfig(loadCommandConfig());
  const server = new Server({ name: 'cardwright', version: packageVersion }, { capabilities: { tools: {} } });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolDefinitions(backend.mode, backend.description) }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    try {
      const args = request.params.arguments ?? {};
      if (request.params.name === renderToolName) return await renderCards(backend, args);
      if (request.params.name === batchToolName && backend instanceof RemoteBackend) return await renderBatch(backend, args);
      if (request.params.name === themesToolName) return { content: [{ type: 'text', text: JSON.stringify(await backend.themes(), null, 2) }] };
      const tools = toolDefinitions(backend.mode, backend.description).map((tool) => tool.name);
      throw new ToolError('not_found', `There is no tool "${request.params.name}"; the tools are ${tools.join(', ')}.`);
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: toolErrorText(error) }] };
    }
  });

  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    await backend.close().catch(() => {});
    process.exit(0);
  };
  // The client ends the session by closing our stdin (or with a signal): close the browser, then exit.
  process.stdin.once('end', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());

  await server.connect(new StdioServerTransport());
}
