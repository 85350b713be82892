// The core's errors: what went wrong in the domain's own words, with no transport in them.
// Every front end names a failure by the same label (errorLabelOf) with the same message; each maps
// it to its own answer in one place: the HTTP layer to a status (src/http/http-errors.ts), the CLI
// to an exit code (src/cli/exit-codes.ts), the MCP server to a tool error (src/mcp/tool-errors.ts).
// Messages are safe to show to whoever sent the request.
// A request whose deadline passed or whose client left is not a CardError: it fails with its
// signal's reason (a TimeoutError or AbortError, see isAbortError), which each front end words.

export type CardErrorKind =
  /** A field, theme, mode or MDX construct the request may not have. */
  | 'invalid_request'
  /** The content needs more cards, pixels or bytes than one request may make. */
  | 'content_too_large'
  /** Every render page or Markdown worker is busy and its queue is full, or the service is stopping. */
  | 'busy'
  /** The browser failed on this request twice. */
  | 'render_failed'
  /** The store refused the images; nothing stayed stored. */
  | 'storage_failed';

export class CardError extends Error {
  /** For `busy`: how many seconds the caller should wait before trying again. */
  readonly retryAfterSeconds?: number;
  /**
   * The request was stopped while its render page was still drawing (a card over its time limit):
   * the page pool closes that page instead of clearing it for the next request.
   */
  readonly pageLeftBusy: boolean;

  constructor(
    readonly kind: CardErrorKind,
    message: string,
    options: { retryAfterSeconds?: number; cause?: unknown; pageLeftBusy?: boolean } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'CardError';
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.pageLeftBusy = options.pageLeftBusy ?? false;
  }
}

export const invalidRequest = (message: string) => new CardError('invalid_request', message);

/**
 * The name every front end gives a kind: the HTTP API's error label, the CLI's and the MCP tool's
 * `<label>: <message>`. One vocabulary, so a client learns one set of names whichever way it
 * sends a request; labels are part of the contract (docs/api.md#errors), so never rename one.
 */
const labelOfKind = {
  invalid_request: 'invalid_request',
  content_too_large: 'invalid_request',
  busy: 'overloaded',
  render_failed: 'render_failed',
  storage_failed: 'storage_failed',
} as const satisfies Record<CardErrorKind, string>;

export type CardErrorLabel = (typeof labelOfKind)[CardErrorKind];

export const errorLabelOf = (error: CardError): CardErrorLabel => labelOfKind[error.kind];

/** What every front end says of a request whose deadline passed (its signal's TimeoutError), labelled `timeout`. */
export const deadlineMessage = 'The request did not finish within its deadline and was cancelled.';

/** True when a request failed because its deadline passed. */
export const isDeadlineError = (error: unknown): boolean => error instanceof Error && error.name === 'TimeoutError';

/** True when the error was raised because a request's deadline passed or it was cancelled. */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}
