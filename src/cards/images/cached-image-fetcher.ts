// Remote images for the live preview, remembered for a while. The editor asks for a preview on
// almost every keystroke, and each one would otherwise fetch every image of the document again:
// slow for the writer, and a stream of requests to the image's host. A URL being fetched is shared
// by every preview that wants it; a URL that failed is not tried again for a short while.
import { LRUCache } from 'lru-cache';
import { RemoteImageRefused, type FetchedImage, type ImageSource } from './remote-image-fetcher.js';

export interface ImageCacheOptions {
  /** Bytes of images kept at most. */
  maxBytes: number;
  /** How long a fetched image is reused. */
  ttlMs: number;
  /** How long a failed URL answers with its failure instead of being fetched again. */
  failureTtlMs: number;
}

type Remembered = { image: FetchedImage } | { failure: string };

export class CachedImageFetcher implements ImageSource {
  private readonly remembered: LRUCache<string, Remembered>;
  private readonly inFlight = new Map<string, Promise<Remembered>>();

  constructor(
    private readonly source: ImageSource,
    private readonly options: ImageCacheOptions,
  ) {
    this.remembered = new LRUCache<string, Remembered>({
      maxSize: options.maxBytes,
      // A failure costs a little memory too, so a flood of bad URLs cannot grow the cache unbounded.
      sizeCalculation: (entry) => ('image' in entry ? entry.image.bytes.length : 256) + 64,
      ttl: options.ttlMs,
    });
  }

  async fetch(source: string, signal?: AbortSignal): Promise<FetchedImage> {
    const entry = this.remembered.get(source) ?? (await this.shared(source, signal));
    if ('failure' in entry) throw new RemoteImageRefused(entry.failure);
    return entry.image;
  }

  /** One fetch per URL at a time; each caller still stops waiting when its own request ends. */
  private shared(source: string, signal?: AbortSignal): Promise<Remembered> {
    let pending = this.inFlight.get(source);
    if (!pending) {
      // Not tied to the first caller's signal: another preview may be waiting for the same image.
      pending = this.source.fetch(source).then(
        (image): Remembered => ({ image }),
        (error: unknown): Remembered => ({ failure: error instanceof Error ? error.message : String(error) }),
      );
      pending.then((entry) => {
        this.inFlight.delete(source);
        this.remembered.set(source, entry, 'failure' in entry ? { ttl: this.options.failureTtlMs } : {});
      });
      this.inFlight.set(source, pending);
    }
    if (!signal) return pending;
    signal.throwIfAborted();
    return new Promise<Remembered>((resolve, reject) => {
      const stop = () => reject(signal.reason);
      signal.addEventListener('abort', stop, { once: true });
      pending.then((entry) => {
        signal.removeEventListener('abort', stop);
        resolve(entry);
      });
    });
  }
}
