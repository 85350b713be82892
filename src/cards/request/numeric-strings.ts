// Numbers sent as text. MD2Card's clients (its own MCP server, form-built flows) send "600" for a
// width, and MD2Card reads it; this service would answer 400 and the client only showed "Request
// failed with status code 400". A number field given a string that is a plain decimal number is
// read as that number, and the answer's `warnings` says so, naming the field. Anything else stays
// as sent, for the schema to refuse with a message naming the field (`"abc"`, `""`, `null`).
import type { TSchema } from '@sinclair/typebox';

interface ObjectSchema {
  properties: Record<string, TSchema>;
}

/** A decimal number, as JSON or a person writes it: 600, -1.5, .5, 2e3; white space around it allowed. */
const decimalNumber = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/** The body with numeric strings in number fields read as numbers, and one warning per field read. */
export function readNumericStrings(body: unknown, schema: ObjectSchema): { body: unknown; warnings: string[] } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { body, warnings: [] };
  const read: Record<string, unknown> = { ...body };
  const warnings: string[] = [];
  for (const field of numberFields(schema)) {
    const value = read[field];
    // "1e400" is written like a number but is none (Infinity): it stays text, refused as sent.
    if (typeof value !== 'string' || !decimalNumber.test(value) || !Number.isFinite(Number(value))) continue;
    read[field] = Number(value);
    warnings.push(`${field} was sent as the string ${JSON.stringify(value)} and read as the number ${read[field]}; send it as a JSON number.`);
  }
  return { body: read, warnings };
}

/** The fields of `schema` whose value is a number (`type: number` or `integer`, alone or in a union). */
export function numberFields(schema: ObjectSchema): string[] {
  const isNumber = (property: TSchema): boolean =>
    property.type === 'number' || property.type === 'integer' || ((property.anyOf as TSchema[] | undefined)?.some(isNumber) ?? false);
  return Object.entries(schema.properties)
    .filter(([, property]) => isNumber(property))
    .map(([field]) => field);
}
