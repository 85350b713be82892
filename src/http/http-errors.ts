// The error table of the HTTP API (docs/api.md#errors): every failure leaves the service as
// {"error": "<label>", "message": "…", "requestId": "…"} with the status of its label. Labels are
// part of the contract; clients branch on them, so never rename one.
//
// The core throws CardError (src/cards/errors.ts) without any status; this file is the one place
// where a domain error becomes an HTTP answer.
import { deadlineMessage, errorLabelOf, type CardError, type CardErrorLabel } from '../cards/errors.js';

/** The core's labels (cards/errors.ts, shared with the CLI and the MCP server) and the HTTP layer's own. */
export type ErrorLabel =
  | CardErrorLabel
  | 'unauthorized'
  | 'not_found'
  | 'timeout'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'request_timeout'
  | 'headers_too_large'
  | 'rate_limited'
  | 'internal_error';

export const statusOfLabel: Record<ErrorLabel, number> = {
  invalid_request: 400,
  unauthorized: 401,
  not_found: 404,
  payload_too_large: 413,
  unsupported_media_type: 415,
  request_timeout: 408,
  headers_too_large: 431,
  rate_limited: 429,
  overloaded: 503,
  timeout: 504,
  storage_failed: 502,
  render_failed: 500,
  internal_error: 500,
};

/** A failure of the HTTP layer itself (a key, a rate limit, a body), or a mapped domain error. */
export class HttpError extends Error {
  readonly status: number;
  /** Seconds, for 429/503 answers: sent as the Retry-After header. */
  readonly retryAfter?: number;

  constructor(
    readonly label: ErrorLabel,
    message: string,
    options: { retryAfter?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'HttpError';
    this.status = statusOfLabel[label];
    this.retryAfter = options.retryAfter;
  }
}

/**
 * The failures the HTTP layer words itself. The error handler and the routes build their answers
 * with these, and so does the OpenAPI document for its examples (openapi-schemas.ts).
 */
export const httpFailures = {
  unauthorized: () => new HttpError('unauthorized', 'Send a valid API key in the x-api-key header.'),
  notFound: (method: string, path: string) => new HttpError('not_found', `Nothing is at ${method} ${path}.`),
  notJson: () => new HttpError('unsupported_media_type', 'The body must be JSON: send Content-Type: application/json.'),
  tooLarge: (bodyLimit: number) => new HttpError('payload_too_large', `The body is larger than this server accepts. The limit is ${bodyLimit} bytes.`),
  keyRateLimited: (max: number, after: string, retryAfter: number) =>
    new HttpError('rate_limited', `This API key sent more than ${max} requests in a minute; retry in ${after}.`, { retryAfter }),
  previewRateLimited: (waitSeconds: number) =>
    new HttpError('rate_limited', `Too many previews from this address; retry in ${waitSeconds} s.`, { retryAfter: Math.max(1, waitSeconds) }),
  previewsInProgress: (max: number) =>
    new HttpError('rate_limited', `This address already has ${max} previews in progress or waiting, the most one address may have; wait for them.`, { retryAfter: 1 }),
  requestTimeout: (headersTimeoutMs: number, bodyTimeoutMs: number) =>
    new HttpError(
      'request_timeout',
      `The request did not arrive in time: headers must arrive within ${headersTimeoutMs} ms (HEADERS_TIMEOUT_MS) and the whole body within ${bodyTimeoutMs} ms (BODY_TIMEOUT_MS).`,
    ),
  headersTooLarge: (maxHeaderSize: number) =>
    new HttpError('headers_too_large', `The request headers are larger than this server accepts (${maxHeaderSize} bytes in all).`),
  tooManyConnections: (max: number) =>
    new HttpError(
      'rate_limited',
      `This address already has ${max} connections open, the most one address may hold (MAX_CONNECTIONS_PER_ADDRESS); reuse or close some.`,
      { retryAfter: 1 },
    ),
  deadline: () => new HttpError('timeout', deadlineMessage),
  internal: () => new HttpError('internal_error', 'Something went wrong on our side; the details are in the server log.'),
};

/** The body of every error answer; `success: false` as MD2Card's answers have it, so its clients branch on failures unchanged. */
export const errorBody = (error: HttpError, requestId: string) => ({ success: false as const, error: error.label, message: error.message, requestId });

/** The HTTP answer for a domain error. */
export function httpErrorOf(error: CardError): HttpError {
  return new HttpError(errorLabelOf(error), error.message, { retryAfter: error.retryAfterSeconds, cause: error });
}
