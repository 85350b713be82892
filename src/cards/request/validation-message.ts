// Turns JSON Schema (ajv) errors into one sentence a client can act on: the field, the value
// received and what is accepted, e.g. `width is not accepted: got number 5000; accepted: card width in CSS px, 100–2000.`
import type { ErrorObject } from 'ajv';

interface SchemaWithDescription {
  properties?: Record<string, { description?: string; anyOf?: unknown[] }>;
}

export function validationMessage(
  errors: Array<Pick<ErrorObject, 'instancePath' | 'message'> & Partial<Pick<ErrorObject, 'keyword' | 'params'>>>,
  body: unknown,
  schema: SchemaWithDescription,
): string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return `The body must be a JSON object; got ${describe(body)}.`;
  }
  // For a union (value or null), ajv reports each branch; the first error of the field suffices,
  // unless one lies deeper: an object branch's own field (watermark.opacity) is what is wrong.
  const depth = (e: { instancePath: string }) => e.instancePath.split('/').length;
  const fieldErrors = errors.filter((e) => e.instancePath);
  const deepest = Math.max(...fieldErrors.map(depth));
  const error = fieldErrors.find((e) => depth(e) === deepest) ?? errors[0];
  if (!error) return 'The body is not valid.';
  if (error.keyword === 'required') {
    // A required field (the cover's text) is absent: name it and what it takes.
    const missing = String((error.params as { missingProperty?: string } | undefined)?.missingProperty ?? '');
    return `${missing} is required; accepted: ${schema.properties?.[missing]?.description ?? 'a value'}.`;
  }
  const [field = '', part] = error.instancePath.replace(/^\//, '').split('/');
  const value = (body as Record<string, unknown>)[field];
  const accepted = schema.properties?.[field]?.description;
  // A field of an object-valued field, named as field.part with its own bounds.
  const branches = (schema.properties?.[field]?.anyOf ?? []) as SchemaWithDescription[];
  const partSchema = part === undefined ? undefined : branches.find((branch) => branch.properties?.[part])?.properties?.[part];
  if (part !== undefined && partSchema && value !== null && typeof value === 'object') {
    return `${field}.${part} is not accepted: got ${describe((value as Record<string, unknown>)[part])}; accepted: ${partSchema.description ?? error.message}.`;
  }
  if (error.keyword === 'additionalProperties') {
    const extra = String((error.params as { additionalProperty?: string } | undefined)?.additionalProperty ?? '');
    return `${field} has no field ${JSON.stringify(extra)}; accepted: ${accepted ?? error.message}.`;
  }
  return `${field} is not accepted: got ${describe(value)}; accepted: ${accepted ?? error.message}.`;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return value.length > 60 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
