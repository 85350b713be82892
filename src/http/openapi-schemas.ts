// What the OpenAPI document says beyond the request schema: the answers of each route (success
// shapes, every error label with its status and when it happens) and the examples.
import { Type, type TSchema } from '@sinclair/typebox';
import { statusOfLabel, type ErrorLabel } from './http-errors.js';

/** When each error label is answered (docs/api.md#errors). A new label fails to compile until it is described here. */
export const errorLabelMeaning: Record<ErrorLabel, string> = {
  invalid_request: 'body not JSON, not an object, wrong type, out of range, unknown theme/mode/splitMode/format, too many cards, MDX expression or syntax error',
  unauthorized: '`x-api-key` missing or not a valid key (same message for both)',
  not_found: 'unknown route or stored file',
  payload_too_large: 'body over the limit (BODY_LIMIT_BYTES, default 1 MiB)',
  unsupported_media_type: 'body not `application/json`',
  request_timeout: 'the headers or the body did not arrive in time (HEADERS_TIMEOUT_MS, BODY_TIMEOUT_MS); the connection is closed',
  headers_too_large: 'the request headers are over 16 KiB in all',
  rate_limited: 'the key exceeded its rate, or the address holds too many connections (MAX_CONNECTIONS_PER_ADDRESS); `Retry-After` says when to retry',
  overloaded: 'render queue full, or shutting down; `Retry-After` says when to retry',
  timeout: 'the request passed its deadline (REQUEST_TIMEOUT_MS, default 60 s); its work is cancelled and nothing is stored',
  storage_failed: 'the object store refused or did not answer; nothing is stored',
  render_failed: 'the renderer failed twice on this request',
  internal_error: 'anything else; the details are in the server log',
};

export const ImageSchema = Type.Object(
  {
    url: Type.String({ format: 'uri', description: 'absolute public URL of the image' }),
    fileName: Type.String({ description: 'object name: screenshots/<ms since epoch>_<random>.<ext>' }),
    width: Type.Integer({ description: 'image width in pixels (card width × scale)' }),
    height: Type.Integer({ description: 'image height in pixels' }),
    size: Type.Number({ description: "kilobytes (1,024 bytes) with two decimals, as MD2Card reports an image's size" }),
    bytes: Type.Integer({ description: 'the exact size in bytes' }),
  },
  { additionalProperties: true },
);

export const GenerateAnswer = Type.Object(
  {
    success: Type.Literal(true, { description: 'true on every success answer (and false on every error answer), as MD2Card answers' }),
    images: Type.Array(ImageSchema, { description: 'the cards, in order' }),
    cost: Type.Integer({ description: 'the number of cards made (MD2Card reports the credits it charged here; nothing is charged)' }),
    previewUrl: Type.String({
      format: 'uri',
      description: "this service's editor page with the request's settings and Markdown (the request is saved beside the images, with their lifetime)",
    }),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description: 'present when something was not applied as asked, e.g. a themeMode the theme does not have (drawn in its default mode); also sent as X-Cardwright-Warnings headers',
      }),
    ),
  },
  {
    description: 'The cards were rendered and stored.',
    examples: [
      {
        success: true,
        images: [
          {
            url: 'http://localhost:3000/screenshots/1795315408146_84b5d217bd25f896c994bada.png',
            fileName: 'screenshots/1795315408146_84b5d217bd25f896c994bada.png',
            width: 880,
            height: 1172,
            size: 35.17,
            bytes: 36016,
          },
        ],
        cost: 1,
        previewUrl: 'http://localhost:3000/?edit=1795315408146_5c0e4a9d2b7f13e8a6d4c2b1',
      },
    ],
  },
);

export const CoverAnswer = Type.Object(
  {
    success: Type.Literal(true),
    images: Type.Array(ImageSchema, { description: 'the cover designs, in order' }),
    cost: Type.Integer({ description: 'the number of covers made' }),
    warnings: Type.Optional(Type.Array(Type.String(), { description: 'present when something was not applied as asked' })),
  },
  { description: 'The covers were rendered and stored. No previewUrl: a cover is not a document the editor opens.' },
);

export const ThemesAnswer = Type.Object(
  {
    themes: Type.Array(
      Type.Object({
        id: Type.String({ description: 'the value to pass as `theme`' }),
        className: Type.String({ description: 'CSS class of the card; a custom theme is selected by it' }),
        name: Type.String({ description: 'display name' }),
        modes: Type.Array(Type.String(), { description: 'values for `themeMode`; the first is the default' }),
        defaultMode: Type.Union([Type.String(), Type.Null()]),
        custom: Type.Boolean({ description: 'true for a theme from THEMES_DIR' }),
      }),
    ),
    aliases: Type.Record(Type.String(), Type.String(), { description: 'accepted alias → theme ID' }),
  },
  { description: 'Every theme and alias this server accepts.' },
);

/** An example message of each label, as the service words it. */
const errorExamples: Record<ErrorLabel, string> = {
  invalid_request: 'width is not accepted: got number 5000; accepted: card width in CSS px, 100–2000.',
  unauthorized: 'Send a valid API key in the x-api-key header.',
  not_found: 'Nothing is at GET /api/generat.',
  payload_too_large: 'The body is larger than this server accepts. The limit is 1048576 bytes.',
  unsupported_media_type: 'The body must be JSON: send Content-Type: application/json.',
  request_timeout: 'The request did not arrive in time: headers must arrive within 10000 ms (HEADERS_TIMEOUT_MS) and the whole body within 30000 ms (BODY_TIMEOUT_MS).',
  headers_too_large: 'The request headers are larger than this server accepts (16384 bytes in all).',
  rate_limited: 'This API key sent too many requests; retry after the time in Retry-After.',
  overloaded: 'All renderers are busy and the queue is full; retry shortly.',
  timeout: 'The request did not finish within its deadline and was cancelled.',
  storage_failed: 'The image store did not accept the images; nothing was stored. Retry later.',
  render_failed: 'The cards could not be rendered; the details are in the server log.',
  internal_error: 'Something went wrong on our side; the details are in the server log.',
};

/** The error answer for one HTTP status: every label answered with it, and when. */
function errorAnswer(labels: ErrorLabel[]): TSchema {
  const retryable = labels.some((label) => label === 'rate_limited' || label === 'overloaded');
  return Type.Object(
    {
      success: Type.Literal(false, { description: 'false on every error answer, as MD2Card answers' }),
      error: Type.Union(
        labels.map((label) => Type.Literal(label)),
        { description: 'stable label; clients branch on it' },
      ),
      message: Type.String({ description: 'what is wrong: the field, the value received and what is accepted' }),
      requestId: Type.String({ description: 'also sent as the X-Request-Id header; quote it when reporting a problem' }),
    },
    {
      additionalProperties: true,
      description: labels.map((label) => `\`${label}\`: ${errorLabelMeaning[label]}.`).join(' '),
      examples: labels.map((label) => ({ success: false, error: label, message: errorExamples[label], requestId: 'c0a8e5b2-1f1e-4b43-9d8e-2a6b9c3f7d10' })),
      ...(retryable ? { headers: { 'Retry-After': { type: 'integer', description: 'seconds to wait before retrying' } } } : {}),
    },
  );
}

/** Error answers of every label, grouped by status: what POST /api/generate may answer. */
export function errorAnswers(): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorLabel[]>();
  for (const [label, status] of Object.entries(statusOfLabel) as [ErrorLabel, number][]) {
    byStatus.set(status, [...(byStatus.get(status) ?? []), label]);
  }
  return Object.fromEntries([...byStatus].map(([status, labels]) => [status, errorAnswer(labels)]));
}

export const requestExamples = [
  { markdown: '# 你好 🚀\n\nMarkdown in, **card** out.', theme: 'plain-notes', themeMode: 'dark-mode' },
  {
    markdown: '# Weekly notes\n\n- one\n- two\n\n---\n\n## Next\n\nMore text.',
    theme: 'plain-notes',
    themeMode: 'light-mode',
    width: 440,
    height: 586,
    splitMode: 'noSplit',
    mdxMode: false,
    overHiddenMode: false,
    format: 'png',
    scale: 2,
  },
];
