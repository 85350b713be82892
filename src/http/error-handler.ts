// Every failure leaves the server as {"error","message","requestId"} with the status and label of
// the error table (http-errors.ts). Messages of unexpected errors stay in the log; the client gets
// a generic one.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CardError, isAbortError } from '../cards/errors.js';
import { errorBody, HttpError, httpErrorOf, httpFailures } from './http-errors.js';
import { GenerateBody } from '../cards/request/schema.js';
import { CoverBody } from '../cards/request/cover-schema.js';
import { validationMessage } from '../cards/request/validation-message.js';

export function sendError(reply: FastifyReply, request: FastifyRequest, error: HttpError): FastifyReply {
  if (error.retryAfter !== undefined) reply.header('Retry-After', String(error.retryAfter));
  return reply.status(error.status).send(errorBody(error, request.id));
}

const frameworkErrors: Record<string, (bodyLimit: number) => HttpError> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: httpFailures.notJson,
  FST_ERR_CTP_BODY_TOO_LARGE: httpFailures.tooLarge,
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new HttpError('invalid_request', 'The body is empty: send a JSON object, {} for all defaults.'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new HttpError('invalid_request', 'Content-Length does not match the body.'),
};

/** A path or query parameter that failed its schema (e.g. a 200-character theme id in the path). */
function urlValidationMessage(context: string, errors: NonNullable<FastifyError['validation']>): string {
  const error = errors[0];
  const where = context === 'params' ? 'in the path' : 'in the query string';
  const name = error?.instancePath.replace(/^\//, '') || String(error?.params?.missingProperty ?? 'a parameter');
  if (error?.keyword === 'maxLength') return `The ${name} ${where} is too long: at most ${error.params.limit} characters are accepted.`;
  return `The ${name} ${where} is not accepted: it ${error?.message ?? 'is not valid'}.`;
}

export function installErrorHandlers(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) return sendError(reply, request, error);
    if (error instanceof CardError) return sendError(reply, request, httpErrorOf(error));
    if (isAbortError(error)) {
      return sendError(reply, request, httpFailures.deadline());
    }
    if (error.validation && error.validationContext && error.validationContext !== 'body') {
      return sendError(reply, request, new HttpError('invalid_request', urlValidationMessage(error.validationContext, error.validation)));
    }
    if (error.validation) {
      // Messages name the field with the description of the schema the route validates with.
      const schema = request.routeOptions.url === '/api/generate/cover' ? CoverBody : GenerateBody;
      return sendError(reply, request, new HttpError('invalid_request', validationMessage(error.validation, request.body, schema)));
    }
    const known = error.code ? frameworkErrors[error.code] : undefined;
    if (known) return sendError(reply, request, known(bodyLimit));
    if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
      return sendError(reply, request, new HttpError('invalid_request', `The body is not valid JSON: ${error.message}`));
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, request, new HttpError('invalid_request', error.message));
    }
    request.log.error({ err: error }, 'request failed');
    return sendError(reply, request, httpFailures.internal());
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, request, httpFailures.notFound(request.method, request.url.split('?')[0] ?? '/')),
  );
}
