// `cardwright mcp`: the MCP server for AI agents, on stdio.
import { runMcpServer } from '../mcp/server.js';
import { parseCommandLine, UsageError } from './command-line.js';
import { mcpCommand } from './commands.js';

export async function runMcp(args: string[]): Promise<void> {
  const { positionals } = parseCommandLine(mcpCommand, args);
  if (positionals.length > 0) throw new UsageError(`mcp takes no arguments; got ${positionals.join(', ')}.`);
  await runMcpServer();
}
