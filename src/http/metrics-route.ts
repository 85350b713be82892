// GET /metrics in the Prometheus text format, and the hook that counts every answered request by
// route pattern (never the raw URL, so stored file names do not become label values).
import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.js';

export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.request(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode);
  });
  app.get('/metrics', async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
