// Turns what an S3-compatible store answered (or failed to answer) into one sentence an operator
// can act on. The same sentence goes to the API client (502 storage_failed), to /ready and to the
// start-up log, so all three tell the same story. It never contains a secret or the bucket name.

/** A storage failure whose message is safe to show and says what went wrong. */
export class StorageError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'StorageError';
  }
}

interface SdkLikeError {
  name?: string;
  code?: string;
  message?: string;
  errors?: SdkLikeError[];
  $metadata?: { httpStatusCode?: number };
}

const credentialCodes = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'InvalidToken', 'ExpiredToken', 'TokenRefreshRequired', 'InvalidSecurity']);
const regionCodes = new Set(['PermanentRedirect', 'AuthorizationHeaderMalformed', 'IllegalLocationConstraintException']);
const networkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ECONNABORTED']);

/** One sentence, starting in lower case, saying why the store failed and what to check. */
export function describeStorageFailure(error: unknown): string {
  const failure = (error ?? {}) as SdkLikeError;
  const name = failure.name ?? 'Error';
  // Node reports a refused connection to a host with several addresses as an AggregateError.
  const code = failure.code ?? failure.errors?.find((inner) => inner.code)?.code;
  const status = failure.$metadata?.httpStatusCode;

  if (name === 'CredentialsProviderError') {
    return 'no S3 credentials were found: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or give the process an AWS profile or role';
  }
  if (credentialCodes.has(name)) return `the store refused the service's credentials (${name}): check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY`;
  if (name === 'AccessDenied' || status === 403) {
    return `the store denied access (${name}): the credentials need permission to put and delete objects in the bucket`;
  }
  if (name === 'NoSuchBucket') return 'the bucket does not exist (NoSuchBucket): check S3_BUCKET';
  if (regionCodes.has(name) || status === 301) return `the bucket is not at this address (${name}): check S3_REGION and S3_ENDPOINT`;
  if (code && networkCodes.has(code)) return `the store did not answer (${code}): check that S3_ENDPOINT is reachable`;
  if (name === 'TimeoutError' || name === 'RequestTimeout') return `the store did not answer in time (${name})`;
  if (status !== undefined && (status >= 500 || status === 429)) return `the store is unavailable (HTTP ${status} ${name})`;
  if (status !== undefined) return `the store refused the request (HTTP ${status} ${name})`;
  return `the store could not be reached (${code ?? name})`;
}
