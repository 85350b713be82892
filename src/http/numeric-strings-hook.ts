// Numbers sent as text in a route's body (request/numeric-strings.ts): read before the route's
// schema checks the body, so "600" passes as 600 and "abc" is still refused naming its field. The
// warnings are kept per request for the route to add to its answer's `warnings`.
import type { FastifyRequest } from 'fastify';
import { readNumericStrings } from '../cards/request/numeric-strings.js';

type BodySchema = Parameters<typeof readNumericStrings>[1];

const warningsOfRequest = new WeakMap<FastifyRequest, string[]>();

/** A preValidation hook that reads the number fields of `schema` sent as text. */
export function readNumbersSentAsText(schema: BodySchema) {
  return async (request: FastifyRequest) => {
    const { body, warnings } = readNumericStrings(request.body, schema);
    request.body = body;
    if (warnings.length > 0) warningsOfRequest.set(request, warnings);
  };
}

/** What readNumbersSentAsText read differently from how it was sent, for the answer's `warnings`. */
export function bodyWarnings(request: FastifyRequest): string[] {
  return warningsOfRequest.get(request) ?? [];
}
