// A per-client work budget for the unauthenticated preview endpoints: a token bucket per IP
// address whose cost grows with the work asked for, so typing in the editor never hits it but a
// script posting 100,000-character documents in a loop gets 429 long before it can take the CPU.
import { diagramLimits } from '../cards/diagrams/diagram-limits.js';
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
      throw httpFailures.previewRateLimited(waitSeconds);
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

/** A 2,000-character document costs a token (about 10 ms of CPU here), on top of one per preview. */
const charactersPerToken = 2000;

/** Each remote image asked for costs a token more (fetched at most once a few minutes; see CachedImageFetcher). */
const remoteImagePattern = /!\[[^\]]*\]\(\s*<?https?:|<img\b[^>]*\bsrc\s*=\s*["']?https?:/gi;
const maxRemoteImagesCharged = 50;

/**
 * Each ```mermaid fence costs two tokens more: a diagram is drawn in the browser (a few hundred ms),
 * though only once while it is unchanged (see DiagramPages), and a document has at most 20.
 */
const diagramPattern = /^ {0,3}(?:`{3,}|~{3,})[ \t]*mermaid\b/gim;
const diagramCost = 2;

/** Paginating runs in the browser and costs a render page, so it is charged like a big document. */
const splitCost = 5;

/** What one preview of `request` costs, in tokens. */
export function previewCost(request: CardRequest): number {
  const remoteImages = Math.min(maxRemoteImagesCharged, request.markdown.match(remoteImagePattern)?.length ?? 0);
  const diagrams = Math.min(diagramLimits.maxDiagramsPerDocument, request.markdown.match(diagramPattern)?.length ?? 0);
  return 1 + request.markdown.length / charactersPerToken + remoteImages + diagrams * diagramCost + (request.splitMode === 'noSplit' ? 0 : splitCost);
}
