// Checks a generate request outside HTTP (the CLI, the MCP tool) exactly as the route does: the same
// JSON Schema, the same validator options and the same error sentences, then the same defaults.
import { Ajv } from 'ajv';
import { invalidRequest } from '../errors.js';
import type { GenerateOptions } from '../pipeline.js';
import { withDefaults } from '../../http/generate-route.js';
import { GenerateBody, type GenerateBodyInput } from './schema.js';
import { requestValidationOptions } from './validation-options.js';
import { validationMessage } from './validation-message.js';


const validateBody = new Ajv(requestValidationOptions).compile<GenerateBodyInput>(GenerateBody);

/** The request's options with defaults filled in, or an invalid_request CardError saying what is wrong. */
export function checkGenerateBody(body: unknown): GenerateOptions {
  if (!validateBody(body)) throw invalidRequest(validationMessage(validateBody.errors ?? [], body, GenerateBody));
  return withDefaults(body);
}
