// GET /openapi.json (OpenAPI 3.1) and the API reference page at /docs. The document is generated
// from the routes' own schemas, the ones that validate requests, so it cannot drift from what the
// server accepts; this file only adds what validation does not know: answers, defaults, examples.
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { defaultThemeId, type ThemeRegistry } from '../cards/themes/registry.js';
import { CardError } from '../cards/errors.js';
import { requestDefaults } from '../cards/request/schema.js';
import { mimeOfSniffedType } from '../cards/images/sniff-image.js';
import { contentTypeOf } from '../cards/storage/storage.js';
import { packageLicense, packageVersion } from '../version.js';
import { httpErrorOf, httpFailures, type HttpError } from './http-errors.js';
import {
  binaryAnswer,
  ConfigAnswer,
  CoverAnswer,
  errorAnswers,
  exampleFailures,
  type ExampleSettings,
  GenerateAnswer,
  HealthAnswer,
  JobAccepted,
  JobAnswer,
  MetricsAnswer,
  notModified,
  NotReadyAnswer,
  PreviewAnswer,
  ReadyAnswer,
  requestExamples,
  SavedRequestAnswer,
  ThemesAnswer,
  UserInfoAnswer,
} from './openapi-schemas.js';
import { unknownJob } from './jobs-route.js';
import { previewImageGone, previewImageTtlSeconds } from './preview-images.js';
import { noSavedRequest } from './saved-request-route.js';

const description = `Turns Markdown into styled card images, stores them and answers with their public URLs.

Authenticate \`POST /api/generate\` with your key in the \`x-api-key\` header. Every failure is
\`{"error": "<label>", "message": "<details>", "requestId": "…"}\`; the labels are stable.

\`\`\`sh
curl -s http://localhost:3000/api/generate -H "x-api-key: $CARDWRIGHT_API_KEY" \\
  -H "content-type: application/json" -d '{"markdown": "# Hello", "theme": "plain-notes"}'
\`\`\``;

/** The themes of this server, and the limits its example messages state (BODY_LIMIT_BYTES, the connection time limits). */
export interface OpenApiSettings extends ExampleSettings {
  themes: ThemeRegistry;
}

/** Registers the document generator. Call it before the routes, so it sees each one as it is added. */
export async function registerOpenApi(app: FastifyInstance, settings: OpenApiSettings): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'cardwright', version: packageVersion, description, license: { name: packageLicense, identifier: packageLicense } },
      // Relative: the document describes the service it is fetched from, whatever its host name.
      servers: [{ url: '/', description: 'this cardwright service' }],
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
      tags: [
        { name: 'cards', description: 'Render Markdown to card images' },
        { name: 'files', description: 'Stored images (local storage)' },
        { name: 'web page', description: 'What the editor at / uses; open to any client, nothing is stored' },
        { name: 'operations', description: 'Probes for load balancers and orchestrators' },
      ],
    },
    transform: ({ schema, url, route }) => documented(route.method, url, schema, settings),
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/**
 * The readable reference page at /docs: Swagger UI, served from the npm package (no CDN). The
 * plugin's Content-Security-Policy (with the hashes of its inline script and style) is kept, less
 * what let the page fail or reach elsewhere: `upgrade-insecure-requests` made the browser fetch
 * the page's own scripts over HTTPS, so over plain HTTP at any host name but loopback (which
 * browsers exempt) the page stayed blank; `https:` and the Swagger validator's host allowed
 * styles, fonts and images from anywhere, and this page needs none (validatorUrl is off). Being
 * scheme-neutral ('self'), the policy holds over HTTPS behind a proxy as well.
 */
export async function registerApiReference(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    uiConfig: { validatorUrl: null, docExpansion: 'list', defaultModelsExpandDepth: 0, tryItOutEnabled: false },
    staticCSP: true,
    transformStaticCSP: ownFilesOnly,
    // The top bar is Swagger's own (logo and a URL box); this page documents one API only.
    theme: { title: 'cardwright API reference', css: [{ filename: 'cardwright.css', content: '.swagger-ui .topbar { display: none; }' }] },
  });
}

const ownFilesOnly = (policy: string): string =>
  policy
    .split(';')
    .map((directive) => directive.trim().split(/\s+/).filter((token) => token !== '' && token !== 'https:' && token !== 'validator.swagger.io'))
    .filter((tokens) => tokens.length > 0 && tokens[0] !== 'upgrade-insecure-requests')
    // Swagger UI renders some elements with style attributes; a style can load nothing (fonts and
    // images stay limited to the service), so inline styles are allowed rather than reported.
    .map((tokens) => (tokens[0] === 'style-src' ? [...tokens, "'unsafe-inline'"] : tokens).join(' '))
    .join('; ');

const tooManyRequests = 'RATE_LIMIT_PER_MINUTE';

/** A route's schema with its documentation added (the route's own schema object is left untouched); routes not listed are hidden. */
function documented(method: string | string[], url: string, schema: FastifySchema | undefined, settings: OpenApiSettings): { url: string; schema: FastifySchema } {
  const route = `${Array.isArray(method) ? method[0] : method} ${url}`;
  const failures = exampleFailures(settings);
  // Every /api/ route is counted by the rate limit when the operator sets one (rate-limit.ts).
  const limited = [failures.rate_limited];
  const rendering = [failures.overloaded, failures.timeout, failures.render_failed, failures.internal_error];
  const publicRoute = { security: [] };
  switch (route) {
    case 'POST /api/generate':
      return {
        url,
        schema: {
          ...schema,
          operationId: 'generateCards',
          summary: 'Render Markdown to card images',
          description:
            'Every field is optional; `null` or `""` for a text or switch field means the default and unknown fields are ignored. A number field also takes a numeric string (`"440"`), read as the number with a `warnings` entry naming the field; `null` or any other string for a number is a 400.',
          tags: ['cards'],
          security: [{ apiKey: [] }],
          body: generateBodyDocument(schema?.body as GenerateBodySchema, settings.themes),
          response: { 200: GenerateAnswer, ...errorAnswers(Object.values(failures)) },
        },
      };
    case 'POST /api/preview':
      return {
        url,
        schema: {
          ...schema,
          ...publicRoute,
          operationId: 'previewCards',
          summary: 'Preview cards without storing them',
          description: `Takes the body of POST /api/generate. No key is needed; each client address has a work budget (PREVIEW_BUDGET_BURST, PREVIEW_BUDGET_PER_SECOND), and 429 answers when it is spent. The key rate limit (${tooManyRequests}) applies too.`,
          tags: ['web page'],
          body: generateBodyDocument(schema?.body as GenerateBodySchema, settings.themes),
          response: {
            200: PreviewAnswer,
            ...errorAnswers([
              failures.invalid_request,
              failures.payload_too_large,
              failures.unsupported_media_type,
              httpFailures.previewRateLimited(3),
              ...limited,
              ...rendering,
            ]),
          },
        },
      };
    case 'GET /api/preview/images/:id':
      return {
        url,
        schema: {
          ...schema,
          ...publicRoute,
          operationId: 'getPreviewImage',
          summary: "An image of a preview's cards",
          description: `The images of POST /api/preview's answer (those its cards' markup shows, and split cards drawn as images) are paths to this route, kept for ${previewImageTtlSeconds / 60} minutes after their preview. The id is the image's content hash: it never changes.`,
          tags: ['web page'],
          response: {
            // An SVG is drawn as PNG before any card shows it.
            200: binaryAnswer(Object.values(mimeOfSniffedType).filter((type) => type !== 'image/svg+xml'), 'The image.'),
            ...errorAnswers([failures.invalid_request, previewImageGone('9cb482bf33f8b86c7c5705644286985ffb092cf7'), ...limited]),
          },
        },
      };
    case 'GET /api/themes/:theme/thumbnail.webp':
      return {
        url,
        schema: {
          ...schema,
          ...publicRoute,
          operationId: 'getThemeThumbnail',
          summary: 'A thumbnail of a theme and mode',
          description: 'Rendered once and kept for the life of the process; revalidate with If-None-Match.',
          tags: ['web page'],
          params: { type: 'object', properties: { theme: { type: 'string', maxLength: 64, description: 'theme ID or alias' } }, required: ['theme'] },
          querystring: { type: 'object', properties: { mode: { type: 'string', maxLength: 64, description: "a mode of the theme (default: its first)" } } },
          response: {
            200: binaryAnswer(['image/webp'], 'The thumbnail.'),
            304: notModified,
            ...errorAnswers([unknownThemeFailure(settings.themes), ...limited, ...rendering]),
          },
        },
      };
    case 'POST /api/generate/cover':
      return {
        url,
        schema: {
          ...schema,
          operationId: 'generateCovers',
          summary: 'Render cover designs of a title and keywords',
          description:
            "MD2Card's cover API (一句话封面): `count` cover designs (1–3, each a different layout) of the title `text` in the theme, " +
            'the keywords highlighted in the title and shown as tags. Fixed layouts, no AI. Stored like cards, with the same key.',
          tags: ['cards'],
          security: [{ apiKey: [] }],
          response: { 200: CoverAnswer, ...errorAnswers(Object.values(failures)) },
        },
      };
    case 'GET /api/themes':
      return {
        url,
        schema: {
          ...schema,
          ...publicRoute,
          operationId: 'listThemes',
          summary: 'List themes and their modes',
          tags: ['cards'],
          response: { 200: ThemesAnswer, ...errorAnswers(limited) },
        },
      };
    case 'GET /api/config':
      return {
        url,
        schema: {
          ...schema,
          ...publicRoute,
          operationId: 'getRequestConfig',
          summary: "The request model's defaults and bounds",
          tags: ['cards'],
          response: { 200: ConfigAnswer, ...errorAnswers(limited) },
        },
      };
    case 'GET /screenshots/*':
      return {
        url: '/screenshots/{fileName}',
        schema: {
          ...schema,
          ...publicRoute,
          hide: false,
          operationId: 'getStoredImage',
          summary: 'A stored image (local storage)',
          description: "The `url` of an image in POST /api/generate's answer. Names never change, so the answer may be cached for ever.",
          tags: ['files'],
          params: { type: 'object', properties: { fileName: { type: 'string', description: 'the part of `fileName` after screenshots/' } }, required: ['fileName'] },
          response: {
            200: binaryAnswer(Object.values(contentTypeOf), 'The image (or the PDF). Any origin may read it (`Access-Control-Allow-Origin: *`).'),
            304: notModified,
            ...errorAnswers([httpFailures.notFound('GET', '/screenshots/1795315408146_84b5d217bd25f896c994bada.png')]),
          },
        },
      };
    case 'GET /api/requests/:id':
      return {
        url,
        schema: {
          ...schema,
          ...publicRoute,
          operationId: 'getSavedRequest',
          summary: 'The request a generate call saved beside its images',
          description:
            "What the editor page opens at the answer's `previewUrl` (`/?edit=<id>`). No key: the id is as unguessable as an image's name. It lives as long as the images.",
          tags: ['web page'],
          params: { type: 'object', properties: { id: { type: 'string', description: 'the id after `?edit=` in previewUrl: <ms since epoch>_<24 hex digits>' } }, required: ['id'] },
          response: { 200: SavedRequestAnswer, ...errorAnswers([noSavedRequest('1795315408146_5c0e4a9d2b7f13e8a6d4c2b1'), ...limited]) },
        },
      };
    case 'POST /api/jobs':
      return {
        url,
        schema: {
          ...schema,
          operationId: 'submitJob',
          summary: 'Queue one generate request or a batch of up to 200; answers 202 at once',
          description:
            'The body is one POST /api/generate body, or {"requests": [...]} with up to 200 of them, each with an optional `callbackUrl` (needs WEBHOOK_SECRET; signed with X-Cardwright-Signature, see docs/api.md#webhooks). Every request is checked first: a bad one is a 400 naming its index, and nothing is queued.',
          tags: ['cards'],
          security: [{ apiKey: [] }],
          response: {
            202: JobAccepted,
            ...errorAnswers([failures.invalid_request, failures.unauthorized, failures.payload_too_large, failures.unsupported_media_type, ...limited, failures.overloaded, failures.internal_error]),
          },
        },
      };
    case 'GET /api/jobs/:id':
      return {
        url,
        schema: {
          ...schema,
          operationId: 'getJob',
          summary: "A job's state, progress and each request's answer",
          description: 'Each result is exactly what POST /api/generate would have answered for that request. Only the key that created the job reads it; to others it is 404.',
          tags: ['cards'],
          security: [{ apiKey: [] }],
          response: { 200: JobAnswer, ...errorAnswers([failures.unauthorized, unknownJob('Xq3v0bN8kT1mZr6yWc2pLg'), ...limited, failures.overloaded]) },
        },
      };
    case 'GET /api/user/info':
      return {
        url,
        schema: {
          ...schema,
          operationId: 'getKeyUsage',
          summary: 'How many cards this key has made (MD2Card clients read their credits here)',
          description: "MD2Card's account endpoint, in its shape. cardwright charges no credits: `balance` is null and `unlimited` true.",
          tags: ['cards'],
          security: [{ apiKey: [] }],
          response: { 200: UserInfoAnswer, ...errorAnswers([failures.unauthorized, ...limited]) },
        },
      };
    case 'GET /metrics':
      return {
        url,
        schema: { ...schema, ...publicRoute, operationId: 'getMetrics', summary: 'Prometheus metrics', tags: ['operations'], response: { 200: MetricsAnswer } },
      };
    case 'GET /health':
      return {
        url,
        schema: { ...schema, ...publicRoute, operationId: 'getHealth', summary: 'The process answers', tags: ['operations'], response: { 200: HealthAnswer } },
      };
    case 'GET /ready':
      return {
        url,
        schema: {
          ...schema,
          ...publicRoute,
          operationId: 'getReadiness',
          summary: 'The service can do its job (storage writable, browser up, queue not full); 503 when not',
          tags: ['operations'],
          response: { 200: ReadyAnswer, 503: NotReadyAnswer },
        },
      };
    default:
      // The web page itself and its files (/, /assets/, /vendor/, /preview/frame, /fonts/) and the
      // API reference (/openapi.json, /docs/) are not an API. test/openapi.test.ts holds this list.
      return { url, schema: { ...schema, hide: true } };
  }
}

/** What the thumbnail route answers for a theme this server does not have: the registry's own refusal. */
function unknownThemeFailure(themes: ThemeRegistry): HttpError {
  try {
    themes.resolve('no-such-theme', undefined);
  } catch (error) {
    if (error instanceof CardError) return httpErrorOf(error);
  }
  throw new Error('the theme registry accepted "no-such-theme"');
}

interface GenerateBodySchema {
  properties: Record<string, Record<string, unknown>>;
}

/**
 * The request schema with each field's default (from requestDefaults, which normalization applies),
 * the themes of this server, and request examples.
 */
function generateBodyDocument(body: GenerateBodySchema, themes: ThemeRegistry): object {
  const defaults: Record<string, unknown> = { ...requestDefaults, theme: defaultThemeId };
  const themeList = themes.themes.map((theme) => `\`${theme.id}\`${theme.modes.length ? ` (${theme.modes.join(', ')})` : ''}`).join(', ');
  const properties = Object.fromEntries(
    Object.entries(body.properties).map(([field, property]) => {
      const withDefault = defaults[field] === undefined ? property : { ...property, default: defaults[field] };
      if (field === 'theme') return [field, { ...withDefault, description: `${String(property.description)}. On this server: ${themeList}` }];
      if (field === 'themeMode') return [field, { ...withDefault, description: `${String(property.description)}; default: the theme's first mode` }];
      return [field, withDefault];
    }),
  );
  return { ...body, properties, examples: requestExamples };
}
