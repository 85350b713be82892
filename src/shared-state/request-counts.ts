// Fixed-window request counters for the per-key rate limit (@fastify/rate-limit's store): in
// Redis when it answers, so the limit holds in total across replicas, else in this replica's
// memory (an outage then allows each replica its own share; it never fails a request).
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { LRUCache } from 'lru-cache';
import type { SharedRedis } from './redis.js';

/** Counts one request and answers the count in the window and the window's milliseconds left. */
const countScript = `
local current = redis.call('INCR', KEYS[1])
if current == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {current, ttl}`;

interface Window {
  current: number;
  endsAt: number;
}

/** The store class @fastify/rate-limit constructs, bound to this replica's Redis (if any). */
export function requestCountsStore(redis: SharedRedis | undefined): FastifyRateLimitStoreCtor {
  const local = new LRUCache<string, Window>({ max: 10_000 });

  const count = async (key: string, windowMs: number): Promise<{ current: number; ttl: number }> => {
    const shared = await redis?.attempt((client) => client.eval(countScript, 1, `cardwright:rate:${key}`, windowMs) as Promise<[number, number]>);
    if (shared) return { current: shared[0], ttl: shared[1] };
    const now = Date.now();
    const window = local.get(key);
    if (!window || window.endsAt <= now) {
      local.set(key, { current: 1, endsAt: now + windowMs });
      return { current: 1, ttl: windowMs };
    }
    window.current += 1;
    return { current: window.current, ttl: window.endsAt - now };
  };

  return class RequestCounts implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      count(key, timeWindow).then(
        (result) => callback(null, result),
        (error: Error) => callback(error),
      );
    }

    // One limit for the whole API: routes share the counters.
    child(): FastifyRateLimitStore {
      return this;
    }
  };
}
