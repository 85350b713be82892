// A per-client work budget for the unauthenticated preview endpoints: a token bucket per client
// (client-key.ts: an IPv4 address, or an IPv6 /64) whose cost grows with the work asked for, so typing
// in the editor never hits it but a script posting 100,000-character documents in a loop gets 429
// long before it can take the CPU. The cost is charged as it becomes known: the document up front,
// each remote image before it is fetched, the cards of a split preview once laid out.
import type { CardRequest } from '../cards/request/schema.js';
import { httpFailures } from './http-errors.js';

export interface PreviewBudgetOptions {
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

  constructor(private readonly options: PreviewBudgetOptions) {}

  /** Tokens of a full bucket. */
  get burst(): number {
    return this.options.burst;
  }

  /**
   * Takes `cost` tokens from the client's bucket, or throws 429 rate_limited with Retry-After. A cost
   * above the burst takes a full bucket: it is affordable, once, after a full wait.
   */
  spend(client: string, cost: number, now = Date.now()): void {
    const { burst, refillPerSecond } = this.options;
    const bucket = this.buckets.get(client) ?? { tokens: burst, updatedAt: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * refillPerSecond);
    bucket.updatedAt = now;
    // Re-inserting keeps the Map in least-recently-used order for the eviction below.
    this.buckets.delete(client);
    this.buckets.set(client, bucket);
    this.evict();
    const charged = Math.min(cost, burst);
    if (bucket.tokens < charged) {
      const waitSeconds = Math.ceil((charged - bucket.tokens) / refillPerSecond);
      throw httpFailures.previewRateLimited(waitSeconds);
    }
    bucket.tokens -= charged;
  }

  private evict(): void {
    const max = this.options.maxClients ?? 10_000;
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= max) break;
      this.buckets.delete(key);
    }
  }
}

/**
 * The charges of one preview to one client's bucket, made as its costs become known. Together they
 * never exceed a full bucket, so every preview can pass once the client has waited for one.
 */
export class PreviewBill {
  private charged = 0;

  constructor(
    private readonly budget: PreviewBudget,
    private readonly client: string,
  ) {}

  /** Takes `cost` tokens (or what is left of a full bucket), or throws 429 rate_limited. */
  charge(cost: number): void {
    const due = Math.min(cost, this.budget.burst - this.charged);
    if (due <= 0) return;
    this.budget.spend(this.client, due);
    this.charged += due;
  }
}

/** A 2,000-character document costs a token (about 10 ms of CPU here), on top of one per preview. */
const charactersPerToken = 2000;

/** Paginating runs in the browser and costs a render page, so it is charged like a big document. */
const splitCost = 5;

/** What one preview of `request` costs before any work, in tokens. */
export function previewCost(request: CardRequest): number {
  return 1 + request.markdown.length / charactersPerToken + (request.splitMode === 'noSplit' || request.weChatMode ? 0 : splitCost);
}

/**
 * Each remote image costs a token more, charged before it is fetched (fetched at most once a few
 * minutes; see CachedImageFetcher): every image of the parsed document, whatever syntax wrote it
 * (`![a](…)`, `![a][ref]`, `<img>`).
 */
export const remoteImageCost = 1;

/** Capturing a split preview: a token per million device pixels of its cards (about a card of the default size). */
const devicePixelsPerToken = 1_000_000;

/** What capturing the laid-out cards of a split preview costs, in tokens. */
export const capturedCardsCost = (devicePixels: number): number => devicePixels / devicePixelsPerToken;
