// The JSON body parser of every route. Fastify's own answers any failure, a `__proto__` key
// included, with one vague "Body is not valid JSON"; this one says what is wrong: the syntax error
// where it is, or the key that is refused. Keys that could change an object's prototype when the
// body is merged into other objects (`__proto__`, `constructor.prototype`) are refused outright.
import type { FastifyInstance } from 'fastify';
import { HttpError } from './http-errors.js';

function refusePrototypeKeys(this: unknown, key: string, value: unknown): unknown {
  if (key === '__proto__') {
    throw new HttpError('invalid_request', 'The body may not contain a "__proto__" key: it could change the prototype of objects built from the body.');
  }
  if (key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype')) {
    throw new HttpError('invalid_request', 'The body may not contain a "constructor" key holding "prototype": it could change the prototype of objects built from the body.');
  }
  return value;
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.length === 0) {
      done(new HttpError('invalid_request', 'The body is empty: send a JSON object, {} for all defaults.'), undefined);
      return;
    }
    try {
      done(null, JSON.parse(text, refusePrototypeKeys));
    } catch (error) {
      if (error instanceof HttpError) done(error, undefined);
      else done(new HttpError('invalid_request', `The body is not valid JSON: ${(error as Error).message}`), undefined);
    }
  });
}
