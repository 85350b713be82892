// Per-key rate limit on every route (RATE_LIMIT_PER_MINUTE, 0 = off) with @fastify/rate-limit.
// Requests are counted per API key; requests without a valid key per client address. The counter
// key is a digest of the API key, so no key is ever stored in memory maps, Redis or logs as is.
// With REDIS_URL the counters live in Redis and are shared by every replica.
import { clientKey } from './client-key.js';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { httpFailures } from './http-errors.js';
import type { ApiKeyStore } from './api-keys.js';

export interface RateLimitSettings {
  perMinute: number;
  redisUrl?: string;
}


export async function registerRateLimit(app: FastifyInstance, settings: RateLimitSettings, apiKeys: ApiKeyStore): Promise<void> {
  if (settings.perMinute <= 0) return;
  const redis = settings.redisUrl ? await connectRedis(app, settings.redisUrl) : undefined;
  await app.register(rateLimit, {
    global: true,
    max: settings.perMinute,
    timeWindow: 60_000,
    redis,
    nameSpace: 'cardwright-rate:',
    // A Redis outage must not take the API down with it: requests pass, and the error is logged.
    skipOnError: true,
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

async function connectRedis(app: FastifyInstance, url: string) {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { connectTimeout: 2_000, maxRetriesPerRequest: 1, lazyConnect: false });
  redis.on('error', (error) => app.log.warn({ err: error }, 'rate-limit store (Redis) unavailable; requests are not limited meanwhile'));
  app.addHook('onClose', async () => {
    redis.disconnect();
  });
  return redis;
}
