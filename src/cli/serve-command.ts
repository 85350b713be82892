// `cardwright serve`: starts the HTTP service, exactly as `npm start` does.
import { numberOption, parseCommandLine, stringOption, UsageError } from './command-line.js';
import { serveCommand } from './commands.js';

export async function runServe(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(serveCommand, args);
  if (positionals.length > 0) throw new UsageError(`serve takes no arguments; got ${positionals.join(', ')}.`);
  // The options are shorthands for the environment variables, which the configuration checks.
  const port = numberOption('port', values.port);
  if (port !== undefined) process.env.PORT = String(port);
  const host = stringOption(values.host);
  if (host !== undefined) process.env.HOST = host;
  await import('../server.js');
}
