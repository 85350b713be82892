// The Fastify instance of the service, before any route: logging (keys never logged), body and
// header limits, request ids, JSON-only bodies, and framework failures in our error shape.
// buildApp (app.ts) puts the card pipeline's routes on it; route tests put them there around a
// stand-in core, so the HTTP layer is tested on exactly the server the service runs.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { requestValidationOptions } from '../cards/request/validation-options.js';
import type { Config } from '../config.js';
import { clientErrorHandler, limitedServerFactory } from './connection-limits.js';
import { sendError } from './error-handler.js';
import { HttpError } from './http-errors.js';
import { registerJsonBodyParser } from './json-body.js';
import { prettyTransport } from './log-format.js';
import { RequestLogRedaction } from './log-redaction.js';
import { requestValidators } from './request-validators.js';
import { fastifyTrustProxy } from './trust-proxy.js';

/** Ajv's options for the routes' schemas, as the build's precompiled validators were written with (request-validators.ts). */
export const serverAjvOptions = { customOptions: { ...requestValidationOptions } };

/** `logger`: Fastify's logger settings; absent, the configured level and format. */
export function createHttpServer(config: Config, loggerOption?: FastifyServerOptions['logger']): FastifyInstance {
  const logger: FastifyServerOptions['logger'] = loggerOption ?? {
    level: config.logLevel,
    redact: { paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]'], censor: '[redacted]' },
    transport: prettyTransport(config.logFormat),
  };
  const redaction = new RequestLogRedaction();
  const server = Fastify({
    // Whatever the logger settings, logged URLs never carry a key (log-redaction.ts).
    logger: typeof logger === 'object' ? { ...logger, serializers: { ...logger.serializers, req: redaction.serializeRequest } } : logger,
    bodyLimit: config.bodyLimit,
    // request.ip (preview budget, rate limit of unauthenticated requests) from X-Forwarded-For only
    // when it comes from a proxy the operator named.
    trustProxy: fastifyTrustProxy(config.trustProxy),
    // While stopping, requests on open connections get our own 503 (see Renderer.run), not Fastify's.
    return503OnClosing: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    ajv: serverAjvOptions,
    // The large schemas' validators come from the build (request-validators.ts), the rest are compiled.
    schemaController: { compilersFactory: { buildValidator: requestValidators } },
    // Header, body and idle time limits and the per-address connection cap (connection-limits.ts).
    serverFactory: limitedServerFactory(config.connections),
    // Requests that never reach routing still answer in our error shape.
    clientErrorHandler: clientErrorHandler(config.connections),
    frameworkErrors: (error, request, reply) => {
      const message =
        error.code === 'FST_ERR_BAD_URL'
          ? 'The URL is not valid: every % must start an escape such as %20.'
          : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? 'A part of the path is too long: at most 100 characters are accepted (a theme id at most 64).'
            : 'The URL is not accepted.';
      return sendError(reply, request, new HttpError('invalid_request', message));
    },
  });
  server.decorate('requestLogRedaction', redaction);
  // Only JSON bodies are accepted; without this, text/plain would be parsed and reach validation.
  server.removeContentTypeParser('text/plain');
  registerJsonBodyParser(server);
  server.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });

  return server;
}
