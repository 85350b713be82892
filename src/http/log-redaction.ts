// Keys must not reach the log. The API takes them only in the x-api-key header (redacted by the
// logger), but clients do put them in query strings (`?api_key=…`), and the URL of every request
// is logged: query parameters whose name says they hold a secret are logged as [redacted].
import type { FastifyRequest } from 'fastify';

const secretName = /key|token|secret|passw|auth|signature|credential/i;

/** The URL with the values of secret-looking query parameters replaced. */
export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const parts = url
    .slice(query + 1)
    .split('&')
    .map((part) => {
      const equals = part.indexOf('=');
      const rawName = equals < 0 ? part : part.slice(0, equals);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // A malformed escape: judge the name as written.
      }
      return equals >= 0 && secretName.test(name) ? `${rawName}=[redacted]` : part;
    });
  return `${url.slice(0, query)}?${parts.join('&')}`;
}

/** Fastify's request serializer, with the URL redacted. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
