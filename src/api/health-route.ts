// GET /health (the process answers) and GET /ready (it can do its job: storage writable),
// both unauthenticated so load balancers and orchestrators can probe them.
import type { FastifyInstance } from 'fastify';
import type { Storage } from '../storage/storage.js';

export function registerHealthRoutes(app: FastifyInstance, storage: Storage): void {
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/ready', async (_request, reply) => {
    try {
      await storage.health();
      return { status: 'ready' };
    } catch (error) {
      return reply.status(503).send({ status: 'not_ready', storage: (error as Error).message });
    }
  });
}
