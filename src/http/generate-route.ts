// POST /api/generate: authenticate, validate, fill in defaults, render, store, answer with URLs.
import type { FastifyInstance } from 'fastify';
import { HttpError } from './http-errors.js';
import { generateImages, type GenerateDeps, type GenerateOptions } from '../cards/pipeline.js';
import type { Metrics } from './metrics.js';
import type { RenderCache } from '../cards/render-cache.js';
import { withRequestLog } from '../cards/request-log.js';
import type { ApiKeyStore } from './api-keys.js';
import { defaultMarkdown, GenerateBody, limits, type GenerateBodyInput } from '../cards/request/schema.js';
import { requestDeadline } from './request-deadline.js';

export interface GenerateRouteDeps extends GenerateDeps {
  apiKeys: ApiKeyStore;
  requestTimeoutMs: number;
  /** Absent when RENDER_CACHE=off. */
  cache?: RenderCache;
  metrics?: Metrics;
}

/** `null` and "" mean "use the default" for optional strings (PRODUCT.md §2). */
const orDefault = <T>(value: T | null | undefined | '', fallback: T): T => (value === null || value === undefined || value === '' ? fallback : value);

export function withDefaults(body: GenerateBodyInput): GenerateOptions {
  return {
    markdown: orDefault(body.markdown, defaultMarkdown),
    theme: orDefault<string | undefined>(body.theme, undefined),
    themeMode: orDefault<string | undefined>(body.themeMode, undefined),
    width: Math.round(orDefault(body.width, limits.width.default)),
    height: Math.round(orDefault(body.height, limits.height.default)),
    splitMode: orDefault(body.splitMode, 'noSplit'),
    mdxMode: orDefault(body.mdxMode, false),
    overHiddenMode: orDefault(body.overHiddenMode, false),
    format: orDefault(body.format, 'png'),
    scale: orDefault(body.scale, limits.scale.default),
  };
}

export function registerGenerateRoute(app: FastifyInstance, deps: GenerateRouteDeps): void {
  app.post<{ Body: GenerateBodyInput | undefined }>(
    '/api/generate',
    {
      // Authentication runs before the body is validated, so an unauthenticated caller learns nothing.
      onRequest: async (request) => {
        const key = request.headers['x-api-key'];
        if (!deps.apiKeys.isValid(typeof key === 'string' ? key : undefined)) {
          throw new HttpError('unauthorized', 'Send a valid API key in the x-api-key header.');
        }
      },
      schema: { body: GenerateBody },
    },
    async (request, reply) => {
      const options = withDefaults(request.body ?? {});
      const { cache } = deps;
      if (!cache) {
        const { images } = await withRequestLog(request.log, () => generateImages(deps, options, requestDeadline(reply, deps.requestTimeoutMs)));
        deps.metrics?.stored(images);
        return { images };
      }

      // The theme is resolved first so an alias, or an omitted default mode, hits the same entry.
      const { theme, mode } = deps.themes.resolve(options.theme, options.themeMode);
      const cacheKey = cache.keyOf({ ...options, theme: theme.id, themeMode: mode }, String(request.headers['x-api-key']));
      const cached = cache.get(cacheKey);
      if (cached) {
        reply.header('X-Cache', 'hit');
        return { images: cached };
      }
      const { images, complete } = await withRequestLog(request.log, () => generateImages(deps, options, requestDeadline(reply, deps.requestTimeoutMs)));
      deps.metrics?.stored(images);
      // A card with a placeholder for an image that failed to load is not remembered: the image
      // may load next time.
      if (complete) cache.set(cacheKey, images);
      reply.header('X-Cache', 'miss');
      return { images };
    },
  );
}
