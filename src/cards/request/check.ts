// Checks a request that did not come through an HTTP route (the CLI, the MCP tool) exactly as the
// route does: the same JSON Schema, the same validator options and the same error sentences.
import { Ajv, type ValidateFunction } from 'ajv';
import { invalidRequest } from '../errors.js';
import { normalizeRequest } from './normalize.js';
import { readNumericStrings } from './numeric-strings.js';
import { GenerateBody, type CardRequest, type GenerateBodyInput } from './schema.js';
import { requestValidationOptions } from './validation-options.js';
import { validationMessage } from './validation-message.js';

// Compiled on first use: compiling the schema costs a few hundred ms of CPU, which the service's
// start-up (where only the OpenAPI examples import this module) should not pay.
let compiled: ValidateFunction<GenerateBodyInput> | undefined;
const validator = () => (compiled ??= new Ajv(requestValidationOptions).compile<GenerateBodyInput>(GenerateBody));

/**
 * The normalized request and what was read differently from how it was sent (a number sent as
 * text), or an invalid_request CardError saying what is wrong.
 */
export function checkRequest(given: unknown): { request: CardRequest; warnings: string[] } {
  const { body, warnings } = readNumericStrings(given, GenerateBody);
  const validateBody = validator();
  if (!validateBody(body)) throw invalidRequest(validationMessage(validateBody.errors ?? [], body, GenerateBody));
  return { request: normalizeRequest(body), warnings };
}
