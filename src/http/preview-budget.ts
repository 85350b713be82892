// A per-client work budget for the unauthenticated preview endpoints: a token bucket per IP
// address whose cost grows with the work asked for, so typing in the editor never hits it but a
// script posting 100,000-character documents in a loop gets 429 long before it can take the CPU.
import { HttpError } from './http-errors.js';

export interface BudgetOptions {
  /** Tokens a client may spend at once. */
  burst: number;
  /** Tokens given back per second. */
  refillPerSecond: number;
  /** Clients remembered at most; the idlest are forgotten first (they have a full bucket anyway). */
  maxClients?: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class PreviewBudget {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly options: BudgetOptions) {}

  /** Takes `cost` tokens from the client's bucket, or throws 429 rate_limited with Retry-After. */
  spend(client: string, cost: number, now = Date.now()): void {
    const { burst, refillPerSecond } = this.options;
    const bucket = this.buckets.get(client) ?? { tokens: burst, updatedAt: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * refillPerSecond);
    bucket.updatedAt = now;
    // Re-inserting keeps the Map in least-recently-used order for the eviction below.
    this.buckets.delete(client);
    this.buckets.set(client, bucket);
    this.evict();
    if (bucket.tokens < cost) {
      const waitSeconds = Math.ceil((Math.min(cost, burst) - bucket.tokens) / refillPerSecond);
      throw new HttpError('rate_limited', `Too many previews from this address; retry in ${waitSeconds} s.`, {
        retryAfter: Math.max(1, waitSeconds),
      });
    }
    bucket.tokens -= cost;
  }

  private evict(): void {
    const max = this.options.maxClients ?? 10_000;
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= max) break;
      this.buckets.delete(key);
    }
  }
}
