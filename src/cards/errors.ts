// The one error shape every failure is answered with: {"error": "<label>", "message": "<details>"}.
// Labels are part of the API contract (PRODUCT.md §6); clients branch on them, so never rename one.

export type ErrorLabel =
  | 'invalid_request'
  | 'unauthorized'
  | 'not_found'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'overloaded'
  | 'timeout'
  | 'storage_failed'
  | 'render_failed'
  | 'internal_error';

export const statusOfLabel: Record<ErrorLabel, number> = {
  invalid_request: 400,
  unauthorized: 401,
  not_found: 404,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  overloaded: 503,
  timeout: 504,
  storage_failed: 502,
  render_failed: 500,
  internal_error: 500,
};

/** An error whose message is safe to show the client. Anything else is answered as internal_error. */
export class AppError extends Error {
  readonly status: number;
  /** Seconds, for 429/503 answers: sent as the Retry-After header. */
  readonly retryAfter?: number;

  constructor(
    readonly label: ErrorLabel,
    message: string,
    options: { retryAfter?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.status = statusOfLabel[label];
    this.retryAfter = options.retryAfter;
  }
}

export const invalidRequest = (message: string) => new AppError('invalid_request', message);

/** True when the error was raised because a request's deadline passed or it was cancelled. */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}
