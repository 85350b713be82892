// A valid request body → the request every stage of the pipeline reads: defaults filled in, sizes
// rounded to whole CSS px, fields the schema does not know dropped (so they cannot reach the
// render cache key or a stage by accident).
import { checkBackground } from './background.js';
import { readFrontMatter } from './front-matter.js';
import { normalizeWatermark } from './watermark.js';
import { GenerateBody, limits, requestDefaults, type CardRequest, type GenerateBodyInput } from './schema.js';

const fields = Object.keys(GenerateBody.properties) as Array<keyof GenerateBodyInput>;

/** Sizes are whole CSS px: 440.4 and 440 are the same card (and the same cache entry). */
const rounded: ReadonlySet<keyof GenerateBodyInput> = new Set(['width', 'height']);

/**
 * `null`, "" and absent mean "use the default"; so does a string of only whitespace, which would
 * otherwise draw an empty card where "" draws the default heading. Expects a body the schema accepted.
 */
export function normalizeRequest(given: GenerateBodyInput): CardRequest {
  // Front matter sets fields the body leaves unset (request/front-matter.ts); it is checked there.
  const frontMatter = typeof given.markdown === 'string' ? readFrontMatter(given.markdown) : undefined;
  const body: GenerateBodyInput = frontMatter ? { ...frontMatter.fields, ...setFields(given) } : given;
  const request: Record<string, unknown> = { ...requestDefaults };
  for (const field of fields) {
    const value = body[field];
    if (isUnset(value)) continue;
    request[field] = rounded.has(field) && typeof value === 'number' ? Math.round(value) : value;
  }
  // weChatMode's own default width: a phone's reading column, unless the request names a width.
  if (request.weChatMode === true && (body.width === null || body.width === undefined)) request.width = limits.weChatWidth;
  // A shape JSON Schema cannot express: a colour or gradient that loads nothing (a 400 otherwise).
  if (typeof request.background === 'string') request.background = checkBackground(request.background);
  // A text is shorthand for {text}; defaults filled in; {} is no watermark.
  if (request.watermark !== undefined) {
    request.watermark = normalizeWatermark(request.watermark as NonNullable<GenerateBodyInput['watermark']>);
    if (request.watermark === undefined) delete request.watermark;
  }
  if (frontMatter && (Object.keys(frontMatter.creator).length > 0 || frontMatter.ignoredKeys.length > 0)) {
    request.creator = { ...frontMatter.creator, ...(frontMatter.ignoredKeys.length > 0 ? { ignoredKeys: frontMatter.ignoredKeys } : {}) };
  }
  // The pipeline renders the content without the block, split off here once.
  if (frontMatter) request.content = frontMatter.content;
  return request as CardRequest;
}

const isUnset = (value: unknown) => value === null || value === undefined || (typeof value === 'string' && value.trim() === '');

/** The fields of a body that it sets (neither absent, null nor blank): these win over the front matter. */
function setFields(body: GenerateBodyInput): GenerateBodyInput {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => !isUnset(value)));
}
