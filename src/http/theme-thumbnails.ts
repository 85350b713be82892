// GET /api/themes/:theme/thumbnail.webp?mode=<mode>: the card pipeline's thumbnail of one theme
// and mode (rendered once, kept for the life of the process), for the web page's theme gallery.
import type { FastifyInstance } from 'fastify';
import type { Cards } from '../cards/index.js';

export function registerThemeThumbnailRoute(app: FastifyInstance, cards: Cards): void {
  app.get<{ Params: { theme: string }; Querystring: { mode?: string } }>(
    '/api/themes/:theme/thumbnail.webp',
    {
      schema: {
        params: { type: 'object', properties: { theme: { type: 'string', maxLength: 64 } } },
        querystring: { type: 'object', properties: { mode: { type: 'string', maxLength: 64 } } },
      },
    },
    async (request, reply) => {
      const { data, etag } = await cards.thumbnail(request.params.theme, request.query.mode || undefined);
      reply.header('ETag', etag);
      reply.header('Cache-Control', 'public, max-age=3600');
      if (request.headers['if-none-match'] === etag) return reply.status(304).send();
      return reply.type('image/webp').send(data);
    },
  );
}
