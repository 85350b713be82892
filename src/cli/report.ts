// How the `cardwright` command reports a failure: one line on stderr a user can act on, and the
// exit status (0 done, 1 failed, 2 invalid command line or request). A failure of a request is
// named as the HTTP API and the MCP server name it: `<label>: <message>` (cards/errors.ts).
import { CardError, deadlineMessage, errorLabelOf, isDeadlineError } from '../cards/errors.js';
import { ConfigError } from '../config.js';
import { UsageError } from './command-line.js';
import { exitCodeOf } from './exit-codes.js';

export interface FailureReport {
  /** What goes to stderr, ending in a newline. */
  text: string;
  exitCode: number;
}

export function failureReport(error: unknown): FailureReport {
  if (error instanceof UsageError) {
    return { text: `cardwright: ${error.message}\nRun \`cardwright ${error.command ? `${error.command} ` : ''}--help\` for usage.\n`, exitCode: 2 };
  }
  if (error instanceof CardError) {
    // e.g. `invalid_request: theme "x" is not a known theme. Accepted: …`, as the API says it.
    return { text: `cardwright: ${errorLabelOf(error)}: ${error.message}\n`, exitCode: exitCodeOf(error) };
  }
  if (isDeadlineError(error)) return { text: `cardwright: timeout: ${deadlineMessage}\n`, exitCode: 1 };
  if (error instanceof ConfigError) return { text: `cardwright: ${error.message}\n`, exitCode: 1 };
  return { text: `cardwright: ${error instanceof Error ? error.message : String(error)}\n`, exitCode: 1 };
}
