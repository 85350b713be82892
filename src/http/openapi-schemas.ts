// What the OpenAPI document says beyond the request schema: the answers of each route (success
// shapes, every error label with its status and when it happens) and the examples.
import { Type, type TSchema } from '@sinclair/typebox';
import http from 'node:http';
import { CardError } from '../cards/errors.js';
import { overloaded, renderFailedTwice } from '../cards/render/page-pool.js';
import { checkRequest } from '../cards/request/check.js';
import { storageFailed } from '../cards/storage/store-all.js';
import type { ConnectionLimits } from './connection-limits.js';
import { errorBody, httpErrorOf, httpFailures, type ErrorLabel, type HttpError } from './http-errors.js';

/** When each error label is answered (docs/api.md#errors). A new label fails to compile until it is described here. */
export const errorLabelMeaning: Record<ErrorLabel, string> = {
  invalid_request: 'body not JSON, not an object, wrong type, out of range, unknown theme/mode/splitMode/format/fontFamily, invalid front matter (its line and key named), too many cards, MDX expression or syntax error',
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
    alt: Type.String({
      description:
        'what the card shows, as text, for the alt field of a post: its text in reading order, code blocks named by their language, pictures and diagrams by their alt text, formulas as (formula); at most 1,000 characters, cut at a word. A PDF has every page\'s, one after the other; a PNG carries it as its Description (iTXt chunk)',
    }),
    pages: Type.Optional(Type.Integer({ description: 'for a PDF (format "pdf"): its pages, one per card' })),
  },
  { additionalProperties: true },
);

export const GenerateAnswer = Type.Object(
  {
    success: Type.Literal(true, { description: 'true on every success answer (and false on every error answer), as MD2Card answers' }),
    images: Type.Array(ImageSchema, { description: 'the cards, in order' }),
    cost: Type.Integer({ description: "the number of cards made, a PDF's pages each (MD2Card reports the credits it charged here; nothing is charged)" }),
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
            alt: 'Five habits of focused work\nWrite down the one task that matters today.\nCode (TypeScript).',
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

/** The settings an example message states: the body limit and the connection time limits of this server. */
export interface ExampleSettings {
  bodyLimit: number;
  connections: Pick<ConnectionLimits, 'headersTimeoutMs' | 'bodyTimeoutMs'>;
}

/**
 * The failure each label stands for in the examples, built by the same functions the service
 * answers with (the request check, the render pool, the store, the HTTP layer's own failures), so
 * an example is always a message the service really sends.
 */
export function exampleFailures(settings: ExampleSettings): Record<ErrorLabel, HttpError> {
  return {
    invalid_request: httpErrorOf(caught(() => checkRequest({ width: 5000 }))),
    unauthorized: httpFailures.unauthorized(),
    not_found: httpFailures.notFound('GET', '/api/generat'),
    payload_too_large: httpFailures.tooLarge(settings.bodyLimit),
    unsupported_media_type: httpFailures.notJson(),
    request_timeout: httpFailures.requestTimeout(settings.connections.headersTimeoutMs, settings.connections.bodyTimeoutMs),
    headers_too_large: httpFailures.headersTooLarge(http.maxHeaderSize),
    rate_limited: httpFailures.keyRateLimited(60, '1 minute', 60),
    overloaded: httpErrorOf(overloaded()),
    timeout: httpFailures.deadline(),
    storage_failed: httpErrorOf(storageFailed('the store did not accept them')),
    render_failed: httpErrorOf(renderFailedTwice()),
    internal_error: httpFailures.internal(),
  };
}

function caught(run: () => unknown): CardError {
  try {
    run();
  } catch (error) {
    if (error instanceof CardError) return error;
    throw error;
  }
  throw new Error('the example request was accepted; it must be one the service refuses');
}

const exampleRequestId = 'c0a8e5b2-1f1e-4b43-9d8e-2a6b9c3f7d10';

/** The error answer for one HTTP status: every label answered with it, and when, with an example of each. */
function errorAnswer(failures: HttpError[]): TSchema {
  const labels = [...new Set(failures.map((failure) => failure.label))];
  const retryable = failures.some((failure) => failure.retryAfter !== undefined);
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
      examples: failures.map((failure) => errorBody(failure, exampleRequestId)),
      ...(retryable ? { headers: { 'Retry-After': { type: 'integer', description: 'seconds to wait before retrying' } } } : {}),
    },
  );
}

/** Error answers for the given failures, grouped by status. */
export function errorAnswers(failures: HttpError[]): Record<number, TSchema> {
  const byStatus = new Map<number, HttpError[]>();
  for (const failure of failures) byStatus.set(failure.status, [...(byStatus.get(failure.status) ?? []), failure]);
  return Object.fromEntries([...byStatus].map(([status, group]) => [status, errorAnswer(group)]));
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
  {
    markdown: '---\ntitle: 七天学会做知识卡片\nauthor: 林小满\nhandle: "@xiaoman"\ntags: [知识卡片, markdown]\ncover: true\nsignature: true\nend: 关注我\n---\n# 第一天\n\nWrite it down. #markdown',
    splitMode: 'autoSplit',
    format: 'pdf',
    fontFamily: 'kai',
  },
];

export const HealthAnswer = Type.Object({ status: Type.Literal('ok') }, { description: 'The process answers.' });

export const ReadyAnswer = Type.Object({ status: Type.Literal('ready'), storage: Type.Literal('ok') }, { description: 'The service can do its job.' });

export const NotReadyAnswer = Type.Object(
  {
    status: Type.Literal('not_ready'),
    storage: Type.Optional(Type.String({ description: 'why the store does not accept writes' })),
    draining: Type.Optional(Type.String({ description: 'present while the service is shutting down' })),
    browser: Type.Optional(Type.String({ description: 'present while no browser can render: it is starting, restarting, or its process is stopped' })),
    queue: Type.Optional(Type.String({ description: 'present while every renderer is busy and the queue is full' })),
  },
  {
    description: 'The service cannot do its job now; each field present names one reason. It turns ready again by itself.',
    examples: [{ status: 'not_ready', storage: 'not writable: the store did not answer' }],
  },
);

const bound = (description: string) => Type.Object({ min: Type.Number(), max: Type.Number(), default: Type.Number() }, { description });

export const ConfigAnswer = Type.Object(
  {
    defaults: Type.Record(Type.String(), Type.Unknown(), { description: 'what each request field means when it is absent' }),
    limits: Type.Object({
      markdownMaxLength: Type.Integer(),
      width: bound('card width in CSS px'),
      height: bound('card height in CSS px'),
      scale: bound('device pixels per CSS px'),
    }),
    splitModes: Type.Array(Type.String()),
    formats: Type.Array(Type.String()),
    watermark: Type.Object(
      {
        positions: Type.Array(Type.String()),
        textMaxLength: Type.Integer(),
        imageMaxLength: Type.Integer(),
        imageMaxPixels: Type.Integer(),
        opacity: Type.Object({ min: Type.Number(), max: Type.Number(), default: Type.Number(), tiledDefault: Type.Number() }),
        size: bound("the text's font size in CSS px"),
      },
      { description: 'the bounds of the watermark field; the first position is the default' },
    ),
  },
  { description: "The request model's defaults and bounds, as POST /api/generate applies them." },
);

export const PreviewAnswer = Type.Object(
  {
    cards: Type.Array(
      Type.Union([
        Type.Object({ html: Type.String({ description: 'the card as HTML, for the preview frame at /preview/frame' }) }),
        Type.Object({
          image: Type.String({ description: 'data: URL of the card as the renderer captured it (split modes)' }),
          width: Type.Number(),
          height: Type.Number(),
        }),
      ]),
    ),
    theme: Type.String({ description: 'the theme ID chosen' }),
    themeMode: Type.Union([Type.String(), Type.Null()]),
    width: Type.Number(),
    height: Type.Number(),
  },
  { description: 'What the cards will look like; nothing is stored.' },
);

/**
 * A binary answer of the given media types. `format: binary` is what client generators
 * (openapi-typescript, @hey-api/openapi-ts, OpenAPI Generator) read to type it as a Blob or a file
 * rather than a string; `contentMediaType` is OpenAPI 3.1's own way of saying the same.
 */
export const binaryAnswer = (mediaTypes: string[], description: string) => ({
  description,
  content: Object.fromEntries(mediaTypes.map((mediaType) => [mediaType, { schema: { type: 'string', format: 'binary', contentMediaType: mediaType } }])),
});

export const SavedRequestAnswer = Type.Object(
  {
    markdown: Type.String(),
    theme: Type.String({ description: 'the theme ID the cards were drawn in' }),
    themeMode: Type.Union([Type.String(), Type.Null()], { description: 'the mode they were drawn in' }),
  },
  {
    additionalProperties: true,
    description: "The generate request's fields, normalized (every default filled in), as the editor opens them.",
  },
);

export const UserInfoAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      used: Type.Integer({ description: "cards this key has made: the sum of its answers' `cost` (shared by replicas with REDIS_URL, else since this replica started)" }),
      balance: Type.Null({ description: 'MD2Card reports the credits left here; cardwright charges none' }),
      unlimited: Type.Literal(true, { description: 'no credit limit: nothing is ever refused for credits (rate limits still apply)' }),
    }),
  },
  { description: "The key's usage, in the shape of MD2Card's account endpoint.", examples: [{ success: true, data: { used: 12, balance: null, unlimited: true } }] },
);

export const MetricsAnswer = {
  description: 'Every metric in the Prometheus text exposition format (docs/api.md#get-metrics).',
  content: { 'text/plain': { schema: { type: 'string' } } },
};

/** 304: the client's copy (If-None-Match) is current. */
export const notModified = { description: 'Not modified: the copy named by If-None-Match is current.', type: 'null' };

const jobId = Type.String({ description: 'the job id: 128 random bits, base64url' });

export const JobAccepted = Type.Object(
  {
    success: Type.Literal(true, { description: 'as in every successful answer: what MD2Card-style clients check first' }),
    id: jobId,
    state: Type.Literal('queued'),
    statusUrl: Type.String({ format: 'uri', description: 'GET it with the same key for the state and the answers (also the Location header)' }),
  },
  {
    description: 'Every request was checked and the job is queued.',
    examples: [{ success: true, id: 'Xq3v0bN8kT1mZr6yWc2pLg', state: 'queued', statusUrl: 'http://localhost:3000/api/jobs/Xq3v0bN8kT1mZr6yWc2pLg' }],
  },
);

export const JobAnswer = Type.Object(
  {
    id: jobId,
    state: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')], {
      description: 'done: every request answered, at least one successfully; failed: none succeeded, or the job was given up',
    }),
    progress: Type.Object({ done: Type.Integer(), total: Type.Integer() }, { description: 'requests answered, of all' }),
    results: Type.Array(
      Type.Object({
        index: Type.Integer({ minimum: 0, description: 'which request this answers, counted from 0 in the order they were sent' }),
        status: Type.Integer({ description: 'the status POST /api/generate would have answered' }),
        body: Type.Object({}, { additionalProperties: true, description: 'the generate answer, or the error answer ({success: false, error, message, requestId})' }),
      }),
      { description: 'the answers so far, in the order of the requests (with Redis, requests run on several replicas at once and are answered in any order)' },
    ),
    createdAt: Type.String({ format: 'date-time' }),
    finishedAt: Type.Optional(Type.String({ format: 'date-time', description: 'when it ended; it can be read for JOBS_TTL_SECONDS after' })),
  },
  { description: 'The job as it stands; a callbackUrl receives the same JSON when it ends.' },
);
