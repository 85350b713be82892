// GET /openapi.json (OpenAPI 3.1) and the API reference page at /docs. The document is generated
// from the routes' own schemas, the ones that validate requests, so it cannot drift from what the
// server accepts; this file only adds what validation does not know: answers, defaults, examples.
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { defaultThemeId, type ThemeRegistry } from '../cards/themes/registry.js';
import { packageVersion } from '../version.js';
import { requestDefaults } from '../cards/request/schema.js';
import { CoverAnswer, errorAnswers, GenerateAnswer, requestExamples, ThemesAnswer } from './openapi-schemas.js';

const description = `Turns Markdown into styled card images, stores them and answers with their public URLs.

Authenticate \`POST /api/generate\` with your key in the \`x-api-key\` header. Every failure is
\`{"error": "<label>", "message": "<details>", "requestId": "…"}\`; the labels are stable.

\`\`\`sh
curl -s http://localhost:3000/api/generate -H "x-api-key: $CARDWRIGHT_API_KEY" \\
  -H "content-type: application/json" -d '{"markdown": "# Hello", "theme": "plain-notes"}'
\`\`\``;

/** Registers the document generator. Call it before the routes, so it sees each one as it is added. */
export async function registerOpenApi(app: FastifyInstance, themes: ThemeRegistry): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'cardwright', version: packageVersion, description },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
      tags: [
        { name: 'cards', description: 'Render Markdown to card images' },
        { name: 'operations', description: 'Probes for load balancers and orchestrators' },
      ],
    },
    transform: ({ schema, url, route }) => ({ url, schema: documented(route.method, url, schema, themes) }),
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/** The readable reference page at /docs: Swagger UI, served from the npm package (no CDN). */
export async function registerApiReference(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    uiConfig: { validatorUrl: null, docExpansion: 'list', defaultModelsExpandDepth: 0, tryItOutEnabled: false },
    staticCSP: true,
    // The top bar is Swagger's own (logo and a URL box); this page documents one API only.
    theme: { title: 'cardwright API reference', css: [{ filename: 'cardwright.css', content: '.swagger-ui .topbar { display: none; }' }] },
  });
}

/** A route's schema with its documentation added (the route's own schema object is left untouched); routes not listed are hidden. */
function documented(method: string | string[], url: string, schema: FastifySchema | undefined, themes: ThemeRegistry): FastifySchema {
  const route = `${Array.isArray(method) ? method[0] : method} ${url}`;
  switch (route) {
    case 'POST /api/generate':
      return {
        ...schema,
        summary: 'Render Markdown to card images',
        description: 'Every field is optional; `null` or `""` means the default and unknown fields are ignored. Types are not coerced: `"440"` is not a width.',
        tags: ['cards'],
        security: [{ apiKey: [] }],
        body: generateBodyDocument(schema?.body as GenerateBodySchema, themes),
        response: { 200: GenerateAnswer, ...errorAnswers() },
      };
    case 'POST /api/generate/cover':
      return {
        ...schema,
        summary: 'Render cover designs of a title and keywords',
        description:
          "MD2Card's cover API (一句话封面): `count` cover designs (1–3, each a different layout) of the title `text` in the theme, " +
          'the keywords highlighted in the title and shown as tags. Fixed layouts, no AI. Stored like cards, with the same key.',
        tags: ['cards'],
        security: [{ apiKey: [] }],
        response: { 200: CoverAnswer, ...errorAnswers() },
      };
    case 'GET /api/themes':
      return { ...schema, summary: 'List themes and their modes', tags: ['cards'], response: { 200: ThemesAnswer } };
    case 'GET /health':
      return { ...schema, summary: 'The process answers', tags: ['operations'] };
    case 'GET /ready':
      return { ...schema, summary: 'The service can do its job (storage writable); 503 when not', tags: ['operations'] };
    default:
      // The web page's own routes (the page, its assets, preview, thumbnails) are not the public API.
      return { ...schema, hide: true };
  }
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
