// GET /api/config: the request model's defaults and bounds, so the web page (and any client) takes
// them from the service instead of repeating them, and can never offer a value the API refuses.
import type { FastifyInstance } from 'fastify';
import { formats, limits, requestDefaults, splitModes } from '../cards/request/schema.js';
import { watermarkLimits, watermarkPositions } from '../cards/request/watermark.js';
import { defaultThemeId } from '../cards/themes/registry.js';

export function registerConfigRoute(app: FastifyInstance): void {
  const answer = { defaults: { ...requestDefaults, theme: defaultThemeId }, limits, splitModes, formats, watermark: { positions: watermarkPositions, ...watermarkLimits } };
  app.get('/api/config', async (_request, reply) => {
    reply.header('Cache-Control', 'no-cache');
    return answer;
  });
}
