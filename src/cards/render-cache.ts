// Answers an identical repeated request with the images already stored, without rendering again.
//
// The key is a digest of everything that decides the pixels: the normalized request (after
// defaults, with the theme resolved to its ID and mode), the renderer version (package version
// plus a digest of the shell document and of the code that draws cards, so a theme, font or code
// change never serves stale images) and the caller's scope, its API key (so one tenant never
// learns what another rendered). Entries expire after a TTL because stored objects may be removed
// by the operator's bucket lifecycle.
//
// Replicas share their entries through a SharedAnswerIndex (Redis: src/shared-state/
// render-cache-index.ts): the key and the stored objects' names, never the bytes, which stay in
// the store. An entry found there is used only once every object it names is still stored, so an
// object deleted in the meantime means rendering again, not a broken URL.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { CardRequest } from './request/schema.js';
import type { StoredImage } from './storage/store-all.js';

/** What an identical request is answered with: the stored images and the saved request beside them. */
export interface CachedAnswer {
  images: StoredImage[];
  savedRequestId: string;
  /** Warnings about the content as drawn (a diagram too small to read), told again on every hit. */
  contentWarnings?: string[];
}

/** Cache entries shared by replicas: the key of a request → its answer, expiring after `ttlMs`. */
export interface SharedAnswerIndex {
  /** The answer and how many more milliseconds it may be used, or undefined (also when the index is unavailable). */
  get(key: string): Promise<{ answer: CachedAnswer; ttlMs: number } | undefined>;
  set(key: string, answer: CachedAnswer, ttlMs: number): Promise<void>;
  forget(key: string): Promise<void>;
}

export interface RenderCacheOptions {
  maxEntries: number;
  /** Upper bound on the memory the cached answers take, in bytes (approximate). */
  maxBytes: number;
  ttlMs: number;
  /** Identifies the renderer's output: changes whenever themes, fonts or the code change. */
  rendererVersion: string;
  /** Shares entries with other replicas; without it the cache is this process's alone. */
  shared?: SharedAnswerIndex;
}

export class RenderCache {
  private readonly entries: LRUCache<string, CachedAnswer>;

  constructor(private readonly options: RenderCacheOptions) {
    this.entries = new LRUCache<string, CachedAnswer>({
      max: options.maxEntries,
      maxSize: options.maxBytes,
      sizeCalculation: (answer) => Math.max(1, JSON.stringify(answer).length * 2),
      ttl: options.ttlMs,
    });
  }

  /**
   * Every field of the normalized request takes part, in a fixed order, so a field added to the
   * request model is part of the key without any change here.
   */
  keyOf(request: CardRequest, scope: string): string {
    const hash = createHash('sha256').update(this.options.rendererVersion).update('\0').update(scope).update('\0');
    const fields = Object.keys(request).sort() as Array<keyof CardRequest>;
    for (const field of fields) hash.update(`${field}=${JSON.stringify(request[field] ?? null)}\0`);
    return hash.digest('base64url');
  }

  /**
   * The answer remembered here, else the one another replica shared, if `stillStored` confirms
   * its objects are all still in the store (an entry whose objects are gone is forgotten).
   */
  async get(key: string, stillStored: (answer: CachedAnswer) => Promise<boolean>): Promise<CachedAnswer | undefined> {
    const local = this.entries.get(key);
    if (local || !this.options.shared) return local;
    const shared = await this.options.shared.get(key);
    if (!shared) return undefined;
    if (!(await stillStored(shared.answer).catch(() => false))) {
      await this.options.shared.forget(key);
      return undefined;
    }
    this.entries.set(key, shared.answer, { ttl: shared.ttlMs });
    return shared.answer;
  }

  async set(key: string, answer: CachedAnswer): Promise<void> {
    this.entries.set(key, answer);
    await this.options.shared?.set(key, answer, this.options.ttlMs);
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * A version string for the renderer's output, from the package version, the shell document and
 * the digest of the code that draws cards (code-fingerprint.ts).
 */
export function rendererVersion(packageVersion: string, shellHtml: string, codeDigest: string): string {
  return `${packageVersion}+${createHash('sha256').update(shellHtml).update('\0').update(codeDigest).digest('hex').slice(0, 16)}`;
}
