// The request schema (src/cards/request/schema.ts) says "a number or null" as
// `anyOf: [{type: number, …}, {type: null}]`, which validators read fine but MCP clients do not:
// they build their argument forms and convert typed text by a property's top-level `type`, and
// with none they send "500" for a width. Here every such field becomes one schema with
// `type: [<type>, "null"]` (and an `enum` for a choice of values), the same constraints otherwise.
type Json = Record<string, unknown>;

const isNull = (schema: Json) => schema.type === 'null';

/** One property with its "or null" folded into a plain `type` list. Others are returned unchanged. */
function plainNullable(property: Json): Json {
  const branches = property.anyOf as Json[] | undefined;
  if (branches && branches.length > 2 && branches.some(isNull)) return plainUnion(property, branches);
  if (branches?.length !== 2 || !branches.some(isNull)) return property;
  const { anyOf: _branches, ...rest } = property;
  const value = branches.find((branch) => !isNull(branch))!;
  const choices = value.anyOf as Json[] | undefined;
  if (choices?.every((choice) => choice.const !== undefined)) {
    const types = [...new Set(choices.map((choice) => typeof choice.const))];
    return { ...rest, type: [...types, 'null'], enum: [...choices.map((choice) => choice.const), null] };
  }
  return { ...value, ...rest, type: [value.type, 'null'] };
}

/**
 * Values of several plain types or null (`watermark`: an object, a text or null) as one schema: a
 * `type` list with each branch's keywords, which JSON Schema applies to values of their own type
 * only (`maxLength` to a text, `properties` to an object). Returned unchanged when two branches
 * share a type or one has none, which a `type` list cannot say.
 */
function plainUnion(property: Json, branches: Json[]): Json {
  const types = branches.map((branch) => branch.type);
  if (types.some((type) => typeof type !== 'string') || new Set(types).size !== types.length) return property;
  const { anyOf: _branches, ...rest } = property;
  const keywords = branches.map(({ type: _type, description: _description, ...branch }) => branch);
  return { ...Object.assign({}, ...keywords), ...rest, type: [...types.filter((type) => type !== 'null'), 'null'] };
}

/** An object schema whose nullable properties use plain `type` lists (see above). */
export function withPlainTypes<T extends { properties: Record<string, unknown> }>(schema: T): T {
  const properties = Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, plainNullable(property as Json)]));
  return { ...schema, properties };
}
