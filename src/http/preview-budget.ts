// A per-client work budget for the unauthenticated preview endpoints: a token bucket per client
// (client-key.ts: an IPv4 address, or an IPv6 /64) whose cost grows with the work asked for, so typing
// in the editor never hits it but a script posting 100,000-character documents in a loop gets 429
// long before it can take the CPU. The cost is charged as it becomes known: the document up front,
// each remote or SVG image before it is fetched or drawn, the cards of a split preview once laid out,
// and, after the fact, the Markdown's CPU time beyond what its length paid for up front. A charge
// after the fact is owed, never refused: the work is done, so it may take the bucket below zero (by
// at most a bucket), and the client's next previews wait until it is paid back.
import { diagramLimits } from '../cards/diagrams/diagram-limits.js';
import type { CardRequest } from '../cards/request/schema.js';
import { httpFailures } from './http-errors.js';
// With REDIS_URL the buckets live in Redis, so a client spreading its previews over replicas has
// one budget in total; while Redis is unavailable each replica keeps buckets in its own memory.
import type { SharedRedis } from '../shared-state/redis.js';

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

/**
 * The same bucket in Redis, refilled from Redis's own clock so replicas' clocks never matter.
 * Answers 1 or 0 (spent or not) and the tokens left, as text (Redis would truncate a fraction).
 */
const spendScript = `
local burst, refill, cost, owed = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1'
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local saved = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(saved[1]) or burst
local at = tonumber(saved[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) / 1000 * refill)
local spent = 0
if owed then tokens = math.max(-burst, tokens - cost); spent = 1
elseif tokens >= cost then tokens = tokens - cost; spent = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(2 * burst / refill * 1000) + 1000)
return {spent, tostring(tokens)}`;

export class PreviewBudget {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly options: PreviewBudgetOptions,
    private readonly redis?: SharedRedis,
  ) {}

  /** Tokens of a full bucket. */
  get burst(): number {
    return this.options.burst;
  }

  /**
   * Takes `cost` tokens from the client's bucket, or throws 429 rate_limited with Retry-After. A cost
   * above the burst takes a full bucket: it is affordable, once, after a full wait. `now` is the
   * clock of the buckets in memory (Redis refills by its own).
   */
  async spend(client: string, cost: number, now = Date.now(), { owed = false } = {}): Promise<void> {
    const { burst, refillPerSecond } = this.options;
    const charged = Math.min(cost, burst);
    const shared = await this.redis?.attempt(
      (redis) => redis.eval(spendScript, 1, `cardwright:preview-budget:${client}`, burst, refillPerSecond, charged, owed ? 1 : 0) as Promise<[number, string]>,
    );
    if (shared) {
      if (shared[0] !== 1) throw httpFailures.previewRateLimited(this.waitSeconds(Number(shared[1]), charged));
      return;
    }
    this.spendLocally(client, charged, now, owed);
  }

  /**
   * Takes `cost` tokens for work already done (see the top of this file): never refused, it may
   * leave the bucket below zero, by at most a bucket.
   */
  owe(client: string, cost: number, now = Date.now()): Promise<void> {
    return this.spend(client, cost, now, { owed: true });
  }

  /** The bucket in this replica's memory: without Redis, or while it is unavailable. */
  private spendLocally(client: string, cost: number, now: number, owed: boolean): void {
    const { burst, refillPerSecond } = this.options;
    const bucket = this.buckets.get(client) ?? { tokens: burst, updatedAt: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * refillPerSecond);
    bucket.updatedAt = now;
    // Re-inserting keeps the Map in least-recently-used order for the eviction below.
    this.buckets.delete(client);
    this.buckets.set(client, bucket);
    this.evict();
    if (owed) {
      bucket.tokens = Math.max(-burst, bucket.tokens - cost);
      return;
    }
    if (bucket.tokens < cost) throw httpFailures.previewRateLimited(this.waitSeconds(bucket.tokens, cost));
    bucket.tokens -= cost;
  }

  private waitSeconds(tokens: number, cost: number): number {
    const { burst, refillPerSecond } = this.options;
    return Math.ceil((Math.min(cost, burst) - tokens) / refillPerSecond);
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

  /** Takes `cost` tokens (or what is left of a full bucket), or rejects with 429 rate_limited. */
  async charge(cost: number): Promise<void> {
    const due = this.due(cost);
    if (due > 0) await this.budget.spend(this.client, due);
  }

  /** Takes `cost` tokens (or what is left of a full bucket) for work already done, never refused (PreviewBudget.owe). */
  async owe(cost: number): Promise<void> {
    const due = this.due(cost);
    if (due > 0) await this.budget.owe(this.client, due);
  }

  private due(cost: number): number {
    const due = Math.min(cost, this.budget.burst - this.charged);
    // Counted before the answer: charges made meanwhile (images fetched side by side) see it.
    if (due > 0) this.charged += due;
    return due;
  }
}

/** A token is about 10 ms of CPU on the reference machine (see charactersPerToken). */
const cpuMsPerToken = 10;

/**
 * CPU time of a preview's Markdown that is never charged: a note of a few paragraphs takes 10–20 ms
 * here, more on a worker still warming up (and the kernel counts in steps of 10 ms), which is the
 * service's cost, not the client's.
 */
const freeMarkdownCpuMs = 50;

/**
 * What a preview owes, after the fact, for the CPU time its Markdown took in a worker: the time
 * beyond the free 50 ms and beyond what its length paid for up front (previewCost). A 24 KB code
 * block of a grammar heavy to highlight takes far more than its 12 tokens of length; sent every
 * second it now runs its client's budget dry.
 */
export function markdownCpuCost(request: CardRequest, cpuMs: number): number {
  return Math.max(0, (cpuMs - freeMarkdownCpuMs) / cpuMsPerToken - request.markdown.length / charactersPerToken);
}

/** A 2,000-character document costs a token (about 10 ms of CPU here), on top of one per preview. */
const charactersPerToken = 2000;

/**
 * Each ```mermaid fence costs two tokens more: a diagram is drawn in the browser (a few hundred ms),
 * though only once while it is unchanged (see DiagramPages), and a document has at most 20.
 */
const diagramPattern = /^ {0,3}(?:`{3,}|~{3,})[ \t]*mermaid\b/gim;
const diagramCost = 2;

/** Paginating runs in the browser and costs a render page, so it is charged like a big document. */
const splitCost = 5;

/** Fitting a noSplit preview's tables or front matter cover lays it out in a render page: charged like paginating. */
export const pageLayoutCost = splitCost;

/** What one preview of `request` costs before any work, in tokens. */
export function previewCost(request: CardRequest): number {
  const diagrams = Math.min(diagramLimits.maxDiagramsPerDocument, request.markdown.match(diagramPattern)?.length ?? 0);
  // Split cards, and a noSplit card cut at its last whole line, are drawn by the browser.
  const drawnByBrowser = request.weChatMode ? false : request.splitMode !== 'noSplit' || request.overHiddenMode;
  return 1 + request.markdown.length / charactersPerToken + diagrams * diagramCost + (drawnByBrowser ? splitCost : 0);
}

/**
 * Each image the service fetches or draws costs a token more, charged before: every remote image of
 * the parsed document, whatever syntax wrote it (`![a](…)`, `![a][ref]`, `<img>`; fetched at most
 * once a few minutes, see CachedImageFetcher), and every SVG in a data: URL (drawn in a process of
 * its own).
 */
export const imageCost = 1;

/** Capturing a split preview: a token per million device pixels of its cards (about a card of the default size). */
const devicePixelsPerToken = 1_000_000;

/** What capturing the laid-out cards of a split preview costs, in tokens. */
export const capturedCardsCost = (devicePixels: number): number => devicePixels / devicePixelsPerToken;
