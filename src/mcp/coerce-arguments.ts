// Tool arguments as the tool's schema types them. The HTTP API converts nothing ("440" is not a
// width, src/cards/request/validation-options.ts), but MCP clients build arguments from forms and
// some send every value as text: "500" for width, "true" for mdxMode. Ajv's coerceTypes converts
// exactly the values its schema types allow, by the same schema the client was shown; anything it
// cannot convert is left as sent, for the API's own validation to name.
import { Ajv } from 'ajv';
import { renderToolName, toolDefinitions, type BackendMode } from './tools.js';

const ajv = new Ajv({ coerceTypes: true, strict: false, allErrors: true, validateFormats: false });
const validators = new Map<BackendMode, ReturnType<Ajv['compile']>>();

/** A copy of `args` with text converted where the render tool's schema asks for a number or a boolean. */
export function coerceArguments(mode: BackendMode, args: Record<string, unknown>): Record<string, unknown> {
  let validate = validators.get(mode);
  if (!validate) {
    validate = ajv.compile(toolDefinitions(mode, '').find((tool) => tool.name === renderToolName)!.inputSchema);
    validators.set(mode, validate);
  }
  const copy = { ...args };
  validate(copy);
  return copy;
}
