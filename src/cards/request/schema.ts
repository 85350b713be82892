// A card request, as a JSON Schema: the body of POST /api/generate and the arguments of the CLI
// and the MCP tool (docs/api.md#request-fields). The same schema validates requests and documents
// the API, so the two can never disagree. `null` (and "" for strings) means "use the default" for
// the text and switch fields, as clients of the reference service send it. A number field has no
// `null`: MCP Inspector sends it for a number it could not read ("abc"), and a default card drawn
// in silence is worse than a 400 naming the field. A number sent as text ("600") is read by
// numeric-strings.ts, with a warning.
//
// Adding a field: declare it here with its bound and description, give it a default in
// `requestDefaults` (or leave it out of there when "absent" is meaningful), and read it in the one
// place that uses it; normalization, the render cache key and the documentation follow.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { backgroundMaxLength } from './background.js';
import { WatermarkField, type Watermark } from './watermark.js';

const orNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()], { description: schema.description });

/** One of `values`, or "" for the default (a string field left blank, as form-built clients send it). */
const oneOfOrBlank = <V extends string>(values: readonly V[]) =>
  Type.Union([...values.map((value) => Type.Literal(value)), Type.Literal('')], { description: values.join(', ') });

export const limits = {
  markdownMaxLength: 100_000,
  // From 100 px, as the reference service accepts: its clients send small sizes for badges and tiles.
  width: { min: 100, max: 2000, default: 440 },
  height: { min: 100, max: 4000, default: 586 },
  scale: { min: 1, max: 3, default: 2 },
  /** Multiplies the theme's type, spacing and decorations (see README.md, "Sizes for each platform"). */
  fontScale: { min: 0.5, max: 4, default: 1 },
  /** weChatMode's card width when none is given: a phone's reading column, in CSS px. */
  weChatWidth: 375,
} as const;

export const defaultMarkdown = '# Hello, cardwright';

export const splitModes = ['noSplit', 'autoSplit', 'hrSplit'] as const;
/** The image formats, and `pdf`: one PDF with every card as a page at the card's size. */
export const formats = ['png', 'jpeg', 'webp', 'pdf'] as const;
/** Bundled faces a request may choose for the body text instead of the theme's (themes/_request-options.css). */
export const fontFamilies = ['sans', 'serif', 'kai', 'rounded', 'mono', 'hand'] as const;

export const GenerateBody = Type.Object(
  {
    markdown: Type.Optional(
      orNull(Type.String({ maxLength: limits.markdownMaxLength, description: `Markdown text, at most ${limits.markdownMaxLength} characters` })),
    ),
    theme: Type.Optional(orNull(Type.String({ maxLength: 64, description: 'a theme ID, alias or custom theme class name' }))),
    themeMode: Type.Optional(orNull(Type.String({ maxLength: 64, description: "a mode of the chosen theme; any other value is drawn in the theme's default mode, with a warning" }))),
    width: Type.Optional(
      Type.Number({ minimum: limits.width.min, maximum: limits.width.max, description: `card width in CSS px, ${limits.width.min}–${limits.width.max}` }),
    ),
    height: Type.Optional(
      Type.Number({ minimum: limits.height.min, maximum: limits.height.max, description: `card height in CSS px, ${limits.height.min}–${limits.height.max}` }),
    ),
    splitMode: Type.Optional(orNull(oneOfOrBlank(splitModes))),
    mdxMode: Type.Optional(orNull(Type.Boolean({ description: 'true or false' }))),
    overHiddenMode: Type.Optional(orNull(Type.Boolean({ description: 'true or false' }))),
    format: Type.Optional(orNull(oneOfOrBlank(formats))),
    scale: Type.Optional(
      Type.Number({ minimum: limits.scale.min, maximum: limits.scale.max, description: `device pixels per CSS px, ${limits.scale.min}–${limits.scale.max}` }),
    ),
    fontScale: Type.Optional(
      Type.Number({
        minimum: limits.fontScale.min,
        maximum: limits.fontScale.max,
        description: `factor on the theme's type and spacing, ${limits.fontScale.min}–${limits.fontScale.max}`,
      }),
    ),
    weChatMode: Type.Optional(
      orNull(Type.Boolean({ description: `true or false; true makes one image for a WeChat article: ${limits.weChatWidth} px wide unless width is given, as tall as the content, without the card's frame` })),
    ),
    hashtags: Type.Optional(orNull(Type.Boolean({ description: 'true or false; true draws #word and #中文标签 at a line start or after a space as tag chips' }))),
    fontFamily: Type.Optional(orNull(oneOfOrBlank(fontFamilies))),
    background: Type.Optional(
      orNull(
        Type.String({
          maxLength: backgroundMaxLength,
          description: 'a CSS colour or gradient that replaces the theme\'s outer background, e.g. #f5e6d3 or linear-gradient(135deg, #ffecd2, #fcb69f); nothing that loads a resource',
        }),
      ),
    ),
    watermark: Type.Optional(WatermarkField),
  },
  { additionalProperties: true },
);

export type GenerateBodyInput = Static<typeof GenerateBody>;

/** Every field of a request after normalization; `theme` and `themeMode` stay absent when not given. */
export type CardRequest = {
  [Field in Exclude<keyof GenerateBodyInput, OptionalField>]-?: Exclude<GenerateBodyInput[Field], null | undefined | ''>;
} & {
  theme?: string;
  themeMode?: string;
  /** Absent: the theme's own background. */
  background?: string;
  /** Absent: the theme's own body face. */
  fontFamily?: (typeof fontFamilies)[number];
  /** Absent: no mark on the cards (request/watermark.ts). */
  watermark?: Watermark;
  /** What the document's front matter asks beyond request fields: a cover, a signature, a closing card (request/front-matter.ts). */
  creator?: CreatorOptions;
  /**
   * The Markdown with its front matter blanked out (line numbers unchanged), when it has one: read
   * once, when the request is normalized. Absent: all of `markdown` is content.
   */
  content?: string;
};

/** The creator's front matter (docs/api.md#front-matter), as the renderer reads it. */
export interface CreatorOptions {
  title?: string;
  subtitle?: string;
  author?: string;
  handle?: string;
  /** A data: URI, or an http(s) address fetched under the remote-image rules when the cards are made. */
  avatar?: string;
  date?: string;
  tags?: string[];
  /** The first card is a cover of title, subtitle, author line and tags. */
  cover?: boolean;
  /** The author line in the footer of every card; a text replaces the author's name there. */
  signature?: boolean | string;
  /** Text of a closing card. */
  end?: string;
  /** Front-matter keys that are neither a request field nor one of the above: ignored, with a warning. */
  ignoredKeys?: string[];
}

/** Fields with no default: absent means something (the registry's choice, the theme's own look). */
type OptionalField = 'theme' | 'themeMode' | 'background' | 'fontFamily' | 'watermark';

/** What an absent field means. `theme` and `themeMode` have none: the registry chooses them. */
export const requestDefaults: Omit<CardRequest, OptionalField> = {
  markdown: defaultMarkdown,
  width: limits.width.default,
  height: limits.height.default,
  splitMode: 'noSplit',
  mdxMode: false,
  overHiddenMode: false,
  format: 'png',
  scale: limits.scale.default,
  fontScale: limits.fontScale.default,
  weChatMode: false,
  hashtags: true,
};
