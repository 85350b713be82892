// GET /health (the process answers) and GET /ready (it can do its job: the store accepts writes,
// the browser is up, the queue is not full, the service is not shutting down), both
// unauthenticated so load balancers and orchestrators can probe them. /ready answers 503 naming
// every reason that applies. A store that is down makes the replica not-ready, never dead:
// /health stays 200 so it is not restarted in a loop, and /ready turns 200 again by itself when
// the store is back.
import type { FastifyInstance } from 'fastify';
import { describeStorageFailure, StorageError } from '../cards/storage/storage-error.js';
import type { Storage } from '../cards/storage/storage.js';

/** What readiness needs to know about the render pool. */
export interface PoolReadiness {
  readonly browserUp: boolean;
  readonly queueFull: boolean;
  readonly isDraining: boolean;
}

export function registerHealthRoutes(app: FastifyInstance, storage: Storage, pool?: PoolReadiness): void {
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/ready', async (_request, reply) => {
    const problems: Record<string, string> = {};
    try {
      await storage.health();
    } catch (error) {
      const reason = error instanceof StorageError ? error.message : describeStorageFailure(error);
      problems.storage = `not writable: ${reason}`;
    }
    if (pool) {
      if (pool.isDraining) problems.draining = 'the service is shutting down';
      if (!pool.browserUp) problems.browser = 'no browser can render (starting, restarting, or stopped)';
      if (pool.queueFull) problems.queue = 'every renderer is busy and the queue is full';
    }
    if (Object.keys(problems).length === 0) return { status: 'ready', storage: 'ok' };
    return reply.status(503).send({ status: 'not_ready', ...problems });
  });
}
