// Tool arguments as the tool's schema types them. MCP clients build arguments from forms and some
// send every value as text: "true" for mdxMode, "1000000" for inlineMaxBytes. Ajv's coerceTypes
// converts exactly the values its schema types allow, by the same schema the client was shown;
// anything it cannot convert is left as sent, for the API's own validation to name. The card
// request's number fields are left as sent too: the request check reads "600" as 600 with a
// warning naming the field, as the HTTP API does (src/cards/request/numeric-strings.ts).
import { Ajv } from 'ajv';
import { numberFields } from '../cards/request/numeric-strings.js';
import { GenerateBody } from '../cards/request/schema.js';
import { renderToolName, toolDefinitions, type BackendMode } from './tools.js';

const ajv = new Ajv({ coerceTypes: true, strict: false, allErrors: true, validateFormats: false });
const validators = new Map<BackendMode, ReturnType<Ajv['compile']>>();
const requestNumberFields = new Set(numberFields(GenerateBody));

/** A copy of `args` with text converted where the render tool's own schema asks for a number or a boolean. */
export function coerceArguments(mode: BackendMode, args: Record<string, unknown>): Record<string, unknown> {
  let validate = validators.get(mode);
  if (!validate) {
    const { inputSchema } = toolDefinitions(mode, '').find((tool) => tool.name === renderToolName)!;
    const properties = Object.fromEntries(Object.entries(inputSchema.properties).filter(([field]) => !requestNumberFields.has(field)));
    validate = ajv.compile({ ...inputSchema, properties });
    validators.set(mode, validate);
  }
  const copy = { ...args };
  validate(copy);
  return copy;
}
