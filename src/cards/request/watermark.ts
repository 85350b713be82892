// The `watermark` field (and front matter key): a creator's mark on every card, so a reposted card
// still says whose it is. A text (a handle), a small image (a logo) or both, at a corner, the
// centre or tiled over the content area, see-through. Declared here as JSON Schema (schema.ts puts
// it in the request) and read into the one shape the renderer draws (render/watermark-markup.ts).
import { Type, type Static } from '@sinclair/typebox';
import { invalidRequest } from '../errors.js';
import { dataImagePattern, dataImageSize } from './data-image.js';

/** Where the mark sits in the content area; `tiled` repeats it over all of it. */
export const watermarkPositions = ['bottom-right', 'bottom-left', 'top-right', 'top-left', 'center', 'tiled'] as const;
export type WatermarkPosition = (typeof watermarkPositions)[number];

export const watermarkLimits = {
  textMaxLength: 40,
  /** Characters of the image's data: URI (about 48 kB of image): a logo, not a photo. */
  imageMaxLength: 65_536,
  /** Pixels of the image's width and height: a small file may declare a huge picture, which the page would decode whole. */
  imageMaxPixels: 2000,
  /** A tiled mark covers the text, so it is fainter unless asked otherwise. */
  opacity: { min: 0.05, max: 1, default: 0.35, tiledDefault: 0.15 },
  /** The text's font size in the card's CSS px (scaled with fontScale like the theme's type); an image is twice as tall. */
  size: { min: 8, max: 72, default: 14 },
} as const;

const { textMaxLength, imageMaxLength, imageMaxPixels, opacity, size } = watermarkLimits;

/** A data: URI (checked here), or an http(s) address, fetched when the cards are drawn (remote-pictures.ts). */
const imageSourcePattern = `(?:${dataImagePattern})|^https?://\\S+$`;

const WatermarkObject = Type.Object(
  {
    text: Type.Optional(Type.String({ maxLength: textMaxLength, description: `the text, e.g. a handle; at most ${textMaxLength} characters` })),
    image: Type.Optional(
      Type.String({
        maxLength: imageMaxLength,
        pattern: imageSourcePattern,
        description:
          `a small image (a logo, at most ${imageMaxPixels}×${imageMaxPixels} px): a data:image/(png|jpeg|gif|webp);base64 URI of at most ${imageMaxLength} characters, ` +
          'or the http(s) address of a PNG, JPEG, GIF, WebP or SVG image, fetched under the remote-image rules',
      }),
    ),
    position: Type.Optional(
      Type.Union(
        watermarkPositions.map((position) => Type.Literal(position)),
        { description: `${watermarkPositions.join(', ')}; default bottom-right` },
      ),
    ),
    opacity: Type.Optional(
      Type.Number({
        minimum: opacity.min,
        maximum: opacity.max,
        description: `${opacity.min}–${opacity.max}; default ${opacity.default} (${opacity.tiledDefault} when tiled)`,
      }),
    ),
    size: Type.Optional(
      Type.Number({
        minimum: size.min,
        maximum: size.max,
        description: `the text's font size in CSS px, ${size.min}–${size.max} (an image is twice as tall); default ${size.default}`,
      }),
    ),
  },
  { additionalProperties: false },
);

/** The request field: an object, or a text as shorthand for `{"text": …}`. */
export const WatermarkField = Type.Union([WatermarkObject, Type.String({ maxLength: textMaxLength }), Type.Null()], {
  description:
    `a mark on every card: a text of at most ${textMaxLength} characters, or an object {text, image, position, opacity, size}: ` +
    `text at most ${textMaxLength} characters; image a data:image/(png|jpeg|gif|webp);base64 URI of at most ${imageMaxLength} characters or an http(s) address; ` +
    `position ${watermarkPositions.join(', ')} (default bottom-right); opacity ${opacity.min}–${opacity.max} (default ${opacity.default}, ${opacity.tiledDefault} tiled); ` +
    `size ${size.min}–${size.max} CSS px (default ${size.default})`,
});

export type WatermarkInput = Static<typeof WatermarkField>;

/** A watermark as the renderer draws it: at least one of text and image, every other part decided. */
export interface Watermark {
  text?: string;
  /** A data: URI (data-image.ts), or an http(s) address until remote-pictures.ts fetches it. */
  image?: string;
  position: WatermarkPosition;
  opacity: number;
  size: number;
}

/**
 * The watermark a valid field asks for, its defaults filled in, keys in one order (the render
 * cache key is made of it); undefined for a blank text or `{}`. An object that sets only how the
 * mark looks (`{"position": "tiled"}`) would draw nothing: a 400 says what it lacks.
 */
export function normalizeWatermark(given: NonNullable<WatermarkInput>): Watermark | undefined {
  const fields: Static<typeof WatermarkObject> = typeof given === 'string' ? { text: given } : given;
  const text = fields.text?.trim() || undefined;
  // The schema's pattern already refused an image that is blank or has spaces.
  const image = fields.image;
  if (text === undefined && image === undefined) {
    if (Object.keys(fields).length === 0 || typeof given === 'string') return undefined;
    throw invalidRequest('watermark is not accepted: it has neither a text nor an image; accepted: {"text": "@name"}, {"image": "data:image/png;base64,…"} or {"image": "https://…"}, or both.');
  }
  if (image?.startsWith('data:')) checkImage(image);
  else if (image !== undefined && !URL.canParse(image)) throw invalidRequest(`watermark.image is not accepted: ${JSON.stringify(image.slice(0, 80))} is not a valid http(s) address.`);
  const position = fields.position ?? 'bottom-right';
  return {
    ...(text === undefined ? {} : { text }),
    ...(image === undefined ? {} : { image }),
    position,
    opacity: fields.opacity ?? (position === 'tiled' ? opacity.tiledDefault : opacity.default),
    size: fields.size ?? size.default,
  };
}

/** The image must be what its data: URI says, at a size a logo may have: a 400 otherwise. */
function checkImage(image: string): void {
  const pixels = dataImageSize(image);
  const { imageMaxPixels } = watermarkLimits;
  if (!pixels) throw invalidRequest('watermark.image is not accepted: its bytes are not a PNG, JPEG, GIF or WebP image.');
  if (pixels.width > imageMaxPixels || pixels.height > imageMaxPixels) {
    throw invalidRequest(`watermark.image is not accepted: it is ${pixels.width}×${pixels.height} pixels; at most ${imageMaxPixels}×${imageMaxPixels} are accepted.`);
  }
}
