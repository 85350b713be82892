// What one connection may hold on to, before any route sees it (README.md, "Limits"):
// - its request headers must arrive within HEADERS_TIMEOUT_MS and the whole request, body
//   included, within BODY_TIMEOUT_MS: a client dripping a declared 1 MB body is answered 408 and
//   cut off (checked every second, so within a second of the limit);
// - a kept-alive connection may sit idle between requests for KEEP_ALIVE_TIMEOUT_MS, and no socket
//   may stay silent longer than IDLE_TIMEOUT_MS (longer than REQUEST_TIMEOUT_MS, so a client waiting
//   for its answer always gets it, 504 included);
// - one address may hold at most MAX_CONNECTIONS_PER_ADDRESS connections at once; the next one is
//   answered 429 in our error shape and closed before HTTP parsing starts.
import http from 'node:http';
import type net from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import { HttpError, httpFailures } from './http-errors.js';

export interface ConnectionLimits {
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  keepAliveTimeoutMs: number;
  idleTimeoutMs: number;
  /** 0: no cap. */
  maxConnectionsPerAddress: number;
}

/** How often Node checks the header and body time limits (its default is every 30 s). */
const checkEveryMs = 1000;

/** An error answer written straight to a socket, in the shape of every other (error-handler.ts). */
export function rawErrorResponse(error: HttpError): string {
  const { status, label, message } = error;
  const headers: Record<string, string> = error.retryAfter === undefined ? {} : { 'Retry-After': String(error.retryAfter) };
  const body = JSON.stringify({ error: label, message });
  const lines = [
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** Fastify's serverFactory: an HTTP server with the time limits and the per-address cap. */
export function limitedServerFactory(limits: ConnectionLimits): NonNullable<FastifyServerOptions['serverFactory']> {
  return (handler) => {
    const server = http.createServer(
      {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.bodyTimeoutMs,
        keepAliveTimeout: limits.keepAliveTimeoutMs,
        connectionsCheckingInterval: checkEveryMs,
      },
      handler,
    );
    // Without a 'timeout' listener Node destroys a socket that has been silent this long.
    server.setTimeout(limits.idleTimeoutMs);
    if (limits.maxConnectionsPerAddress > 0) capConnectionsPerAddress(server, limits.maxConnectionsPerAddress);
    return server;
  };
}

/**
 * Wraps Node's own 'connection' listener (which attaches the HTTP parser): a connection over the
 * cap never gets a parser, so nothing it sends reaches a route; it gets a 429 and is closed.
 */
function capConnectionsPerAddress(server: http.Server, max: number): void {
  const open = new Map<string, number>();
  const parseHttp = server.listeners('connection') as ((socket: net.Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: net.Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.end(
        rawErrorResponse(httpFailures.tooManyConnections(max)),
      );
      setTimeout(() => socket.destroy(), checkEveryMs).unref();
      socket.on('error', () => socket.destroy());
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
    for (const listener of parseHttp) listener.call(server, socket);
  });
}

/** Fastify's clientErrorHandler: malformed requests, header overflows and time-outs in our shape. */
export function clientErrorHandler(limits: ConnectionLimits) {
  return (error: Error & { code?: string }, socket: net.Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    let answer: string;
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      answer = rawErrorResponse(httpFailures.requestTimeout(limits.headersTimeoutMs, limits.bodyTimeoutMs));
    } else if (error.code === 'HPE_HEADER_OVERFLOW') {
      answer = rawErrorResponse(httpFailures.headersTooLarge(http.maxHeaderSize));
    } else {
      answer = rawErrorResponse(new HttpError('invalid_request', 'The request is not valid HTTP/1.1.'));
    }
    if (socket.writable) socket.end(answer);
    socket.destroySoon();
  };
}
