// The render cache's entries shared by replicas, in Redis: the request's key → the answer (the
// stored objects' names, URLs and sizes, a few hundred bytes) with the cache's TTL. The images
// themselves stay in the store. Redis unavailable: every call answers as if the entry were absent,
// and the replica's own cache still works.
import type { CachedAnswer, SharedAnswerIndex } from '../cards/render-cache.js';
import type { SharedRedis } from './redis.js';

const prefix = 'cardwright:render-cache:';

export function redisAnswerIndex(redis: SharedRedis): SharedAnswerIndex {
  return {
    async get(key) {
      const found = await redis.attempt((client) => client.multi().get(prefix + key).pttl(prefix + key).exec());
      const [[, value] = [], [, ttl] = []] = found ?? [];
      if (typeof value !== 'string' || typeof ttl !== 'number' || ttl <= 0) return undefined;
      return { answer: JSON.parse(value) as CachedAnswer, ttlMs: ttl };
    },
    async set(key, answer, ttlMs) {
      await redis.attempt((client) => client.set(prefix + key, JSON.stringify(answer), 'PX', ttlMs));
    },
    async forget(key) {
      await redis.attempt((client) => client.del(prefix + key));
    },
  };
}
