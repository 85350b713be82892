// Keys must not reach the log. The API takes them only in the x-api-key header (redacted by the
// logger), but clients do put them elsewhere in the URL, and the URL of every request is logged:
// the values of query parameters whose name says they hold a secret (`?api_key=…`) are logged as
// [redacted], and so is every path segment, query parameter name or value, or word of one, that is
// an API key the service knows (`/health?x=<key>`, `/files/<key>`), whatever its place or name.
import type { FastifyRequest } from 'fastify';

const secretName = /key|token|secret|passw|auth|signature|credential/i;

/** Answers whether a piece of a URL is one of the service's API keys (revoked ones included). */
export type KeyRecognizer = (candidate: string) => boolean;

const redacted = '[redacted]';

/** A piece of a URL as it reads once decoded; as written when its escapes are malformed. */
function decoded(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** True when the piece, or one of its words (`Bearer <key>`, `a,<key>`), is a key. */
function holdsKey(raw: string, isKey: KeyRecognizer): boolean {
  if (raw === '') return false;
  const text = decoded(raw);
  return isKey(text) || text.split(/[\s,;]+/).some((word) => word !== text && word !== '' && isKey(word));
}

/** The URL with the keys it holds, and the values of secret-looking query parameters, replaced. */
export function redactUrl(url: string, isKey: KeyRecognizer = () => false): string {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  const redactedPath = path
    .split('/')
    .map((segment) => (holdsKey(segment, isKey) ? redacted : segment))
    .join('/');
  if (query < 0) return redactedPath;
  const parts = url
    .slice(query + 1)
    .split('&')
    .map((part) => {
      const equals = part.indexOf('=');
      const rawName = equals < 0 ? part : part.slice(0, equals);
      if (holdsKey(rawName, isKey)) return redacted;
      if (equals < 0) return part;
      const value = part.slice(equals + 1);
      return secretName.test(decoded(rawName)) || holdsKey(value, isKey) ? `${rawName}=${redacted}` : part;
    });
  return `${redactedPath}?${parts.join('&')}`;
}

/**
 * The request serializer of the service's logger. The keys are loaded after the server is made
 * (set-up-service.ts), so they are told to it then; until then only secret-looking parameters
 * are redacted, and no request is served before that.
 */
export class RequestLogRedaction {
  private isKey: KeyRecognizer = () => false;

  recognizeKeys(isKey: KeyRecognizer): void {
    this.isKey = isKey;
  }

  /** Fastify's request serializer, with the URL redacted. */
  readonly serializeRequest = (request: FastifyRequest) => ({
    method: request.method,
    url: redactUrl(request.url, this.isKey),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    /** How the request log keeps keys out (log-redaction.ts). */
    requestLogRedaction: RequestLogRedaction;
  }
}
