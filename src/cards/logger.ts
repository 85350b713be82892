// The logger the core writes to: any pino logger (the HTTP service passes Fastify's, the CLI and
// the MCP server one that writes to stderr).
import type { BaseLogger } from 'pino';

export type Logger = Pick<BaseLogger, 'level' | 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'>;
