// A cover request, as a JSON Schema: the body of POST /api/generate/cover (MD2Card's 一句话封面 API:
// a title and keywords in, `count` cover designs out). The look fields are the card request's own
// (schema.ts), with the same bounds, descriptions and defaults, so a cover matches the cards.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { GenerateBody, type requestDefaults } from './schema.js';
import type { Watermark } from './watermark.js';

const orNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()], { description: schema.description });

export const coverLimits = {
  textMaxLength: 200,
  keywordMaxLength: 40,
  keywordsMax: 8,
  count: { min: 1, max: 3, default: 1 },
} as const;

const { theme, themeMode, width, height, format, scale, background, watermark } = GenerateBody.properties;

export const CoverBody = Type.Object(
  {
    text: Type.String({
      minLength: 1,
      maxLength: coverLimits.textMaxLength,
      description: `the title, 1–${coverLimits.textMaxLength} characters; a line break (\\n, or a backslash and n) starts a subtitle line`,
    }),
    keywords: Type.Optional(
      orNull(
        Type.Union(
          [
            Type.String({ maxLength: coverLimits.keywordMaxLength * coverLimits.keywordsMax }),
            Type.Array(Type.String({ maxLength: coverLimits.keywordMaxLength }), { maxItems: coverLimits.keywordsMax }),
          ],
          {
            description: `words to highlight in the title and show as tags: a string (several separated by commas, 、 or |) or an array, at most ${coverLimits.keywordsMax} keywords of at most ${coverLimits.keywordMaxLength} characters each`,
          },
        ),
      ),
    ),
    count: Type.Optional(
      Type.Integer({
        minimum: coverLimits.count.min,
        maximum: coverLimits.count.max,
        description: `how many cover designs, ${coverLimits.count.min}–${coverLimits.count.max}; each has a different layout`,
      }),
    ),
    theme,
    themeMode,
    width,
    height,
    format,
    scale,
    background,
    watermark,
  },
  { additionalProperties: true },
);

export type CoverBodyInput = Static<typeof CoverBody>;

/** A cover request with defaults filled in and keywords split into a list. */
export interface CoverRequest {
  text: string;
  keywords: string[];
  count: number;
  theme?: string;
  themeMode?: string;
  width: number;
  height: number;
  format: (typeof requestDefaults)['format'];
  scale: number;
  background?: string;
  watermark?: Watermark;
}
