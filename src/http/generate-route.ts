// POST /api/generate: authenticate, validate, then the card pipeline's generate(), answered with
// the stored images' URLs.
import type { FastifyInstance } from 'fastify';
import type { Cards } from '../cards/index.js';
import { normalizeRequest } from '../cards/request/normalize.js';
import { GenerateBody, type GenerateBodyInput } from '../cards/request/schema.js';
import { withRequestLog } from '../cards/request-log.js';
import type { ApiKeyStore } from './api-keys.js';
import { httpFailures } from './http-errors.js';
import type { Metrics } from './metrics.js';
import { requestDeadline } from './request-deadline.js';

export interface GenerateRouteDeps {
  cards: Cards;
  apiKeys: ApiKeyStore;
  requestTimeoutMs: number;
  /** Whether repeated requests may be answered from the render cache (RENDER_CACHE). */
  cacheEnabled: boolean;
  metrics?: Metrics;
}

export function registerGenerateRoute(app: FastifyInstance, deps: GenerateRouteDeps): void {
  app.post<{ Body: GenerateBodyInput | undefined }>(
    '/api/generate',
    {
      // Authentication runs before the body is validated, so an unauthenticated caller learns nothing.
      onRequest: async (request) => {
        const key = request.headers['x-api-key'];
        if (!deps.apiKeys.isValid(typeof key === 'string' ? key : undefined)) {
          throw httpFailures.unauthorized();
        }
      },
      schema: { body: GenerateBody },
    },
    async (request, reply) => {
      const cardRequest = normalizeRequest(request.body ?? {});
      const signal = requestDeadline(reply, deps.requestTimeoutMs);
      // Cache entries are the caller's own: one tenant never learns what another rendered.
      const cacheScope = deps.cacheEnabled ? String(request.headers['x-api-key']) : undefined;
      const { images, fromCache } = await withRequestLog(request.log, () => deps.cards.generate(cardRequest, signal, { cacheScope }));
      if (!fromCache) deps.metrics?.stored(images);
      if (deps.cacheEnabled) reply.header('X-Cache', fromCache ? 'hit' : 'miss');
      return { images };
    },
  );
}
