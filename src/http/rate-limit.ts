// Per-key rate limit on every route (RATE_LIMIT_PER_MINUTE, 0 = off) with @fastify/rate-limit.
// Requests are counted per API key; requests without a valid key per client address. The counter
// key is a digest of the API key, so no key is ever stored in memory maps, Redis or logs as is.
// With REDIS_URL the counters live in Redis and are shared by every replica; while Redis is
// unavailable each replica counts in its own memory (src/shared-state/request-counts.ts).
// Requests without a key are counted per client (client-key.ts: an IPv4 address, or an IPv6 /64),
// before the Redis key is formed.
import { clientKey } from './client-key.js';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { httpFailures } from './http-errors.js';
import type { ApiKeyStore } from './api-keys.js';
import type { SharedRedis } from '../shared-state/redis.js';
import { requestCountsStore } from '../shared-state/request-counts.js';

export interface RateLimitSettings {
  perMinute: number;
  redis?: SharedRedis;
}

export async function registerRateLimit(app: FastifyInstance, settings: RateLimitSettings, apiKeys: ApiKeyStore): Promise<void> {
  if (settings.perMinute <= 0) return;
  await app.register(rateLimit, {
    global: true,
    max: settings.perMinute,
    timeWindow: 60_000,
    store: requestCountsStore(settings.redis),
    // Only the API is limited: probes and metrics must always answer, and stored images are public
    // URLs that many viewers behind one address may load at once.
    allowList: (request) => !request.url.startsWith('/api/'),
    keyGenerator: (request) => {
      const key = request.headers['x-api-key'];
      const id = typeof key === 'string' ? apiKeys.idOf(key) : undefined;
      return id ? `key:${id}` : `ip:${clientKey(request.ip)}`;
    },
    errorResponseBuilder: (_request, context) =>
      httpFailures.keyRateLimited(context.max, context.after, Math.max(1, Math.ceil(context.ttl / 1000))),
  });
}
