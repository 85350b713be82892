// The one place where a failure becomes what the MCP client sees: a tool error whose text is
// "<label>: <message>", with the API's labels and messages, rendering here or remotely.
import { CardError, deadlineMessage, errorLabelOf, isDeadlineError } from '../cards/errors.js';

/** A failure reported to the MCP client as a tool error: "<label>: <message>", as the API says it. */
export class ToolError extends Error {
  constructor(label: string, message: string) {
    super(`${label}: ${message}`);
    this.name = 'ToolError';
  }
}

/** The text of the tool error for any failure; unknown failures keep their own message. */
export function toolErrorText(error: unknown): string {
  if (error instanceof CardError) return `${errorLabelOf(error)}: ${error.message}`;
  if (error instanceof ToolError) return error.message;
  if (isDeadlineError(error)) return `timeout: ${deadlineMessage}`;
  return `render_failed: ${error instanceof Error ? error.message : String(error)}`;
}
