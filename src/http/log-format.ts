// How the service writes its log: JSON lines for log collectors, or readable lines (pino-pretty)
// for a person at a terminal. pino-pretty is a development dependency: it is loaded only when
// pretty output is chosen (LOG_FORMAT=pretty, or standard output is a terminal), found by path
// (knip.json names it as used), and when it is not installed (a production install) the log
// stays JSON.
import { createRequire } from 'node:module';
import type { Config } from '../config.js';

/** The pino transport that prints readable lines, or undefined for JSON lines on standard output. */
export function prettyTransport(format: Config['logFormat'], isTerminal = process.stdout.isTTY === true) {
  if (format === 'json' || (format === 'auto' && !isTerminal)) return undefined;
  let target: string;
  try {
    target = createRequire(import.meta.url).resolve('pino-pretty');
  } catch {
    if (format === 'pretty') process.stderr.write('LOG_FORMAT=pretty needs the pino-pretty package (npm install --save-dev pino-pretty); logging JSON.\n');
    return undefined;
  }
  return { target, options: { colorize: isTerminal, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } };
}
