// `cardwright serve`: starts the HTTP service, exactly as `npm start` does.
import { numberOption, parseCommandLine, stringOption, UsageError } from './command-line.js';
import { serveCommand } from './commands.js';

export async function runServe(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(serveCommand, args);
  if (positionals.length > 0) throw new UsageError(`serve takes no arguments; got ${positionals.join(', ')}.`);
  // The options stand in for PORT and HOST; the configuration checks them with everything else.
  const { runServer } = await import('../http/run-server.js');
  await runServer({ port: numberOption('port', values.port), host: stringOption(values.host) });
}
