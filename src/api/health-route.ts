// GET /health (the process answers) and GET /ready (it can do its job: the store accepts writes),
// both unauthenticated so load balancers and orchestrators can probe them. A store that is down
// makes the replica not-ready, never dead: /health stays 200 so it is not restarted in a loop,
// and /ready turns 200 again by itself when the store is back.
import type { FastifyInstance } from 'fastify';
import { describeStorageFailure, StorageError } from '../storage/storage-error.js';
import type { Storage } from '../storage/storage.js';

export function registerHealthRoutes(app: FastifyInstance, storage: Storage): void {
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/ready', async (_request, reply) => {
    try {
      await storage.health();
      return { status: 'ready', storage: 'ok' };
    } catch (error) {
      const reason = error instanceof StorageError ? error.message : describeStorageFailure(error);
      return reply.status(503).send({ status: 'not_ready', storage: `not writable: ${reason}` });
    }
  });
}
