// Remote images for the live preview, remembered for a while. The editor asks for a preview on
// almost every keystroke, and each one would otherwise fetch every image of the document again:
// slow for the writer, and a stream of requests to the image's host. A URL being fetched is shared
// by every preview that wants it, and stopped once none waits for it any more; a URL that failed
// is not tried again for a short while.
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

/** A fetch shared by every preview waiting for one URL; stopped once none of them waits any more. */
interface SharedFetch {
  result: Promise<Remembered>;
  stop: AbortController;
  waiting: number;
}

export class CachedImageFetcher implements ImageSource {
  private readonly remembered: LRUCache<string, Remembered>;
  private readonly inFlight = new Map<string, SharedFetch>();

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
    // A preview past its deadline sends nothing (its document may still ask for the images it had queued).
    signal?.throwIfAborted();
    const entry = this.remembered.get(source) ?? (await this.shared(source, signal));
    if ('failure' in entry) throw new RemoteImageRefused(entry.failure);
    return entry.image;
  }

  /**
   * One fetch per URL at a time; each caller stops waiting when its own request ends, and the
   * fetch itself stops when the last caller has stopped waiting (its failure is then not kept).
   */
  private shared(source: string, signal?: AbortSignal): Promise<Remembered> {
    let shared = this.inFlight.get(source);
    if (!shared) {
      // Not tied to the first caller's signal: another preview may be waiting for the same image.
      const stop = new AbortController();
      const result = this.source.fetch(source, stop.signal).then(
        (image): Remembered => ({ image }),
        (error: unknown): Remembered => ({ failure: error instanceof Error ? error.message : String(error) }),
      );
      const started: SharedFetch = { result, stop, waiting: 0 };
      result.then((entry) => {
        if (this.inFlight.get(source) === started) this.inFlight.delete(source);
        if (stop.signal.aborted) return;
        this.remembered.set(source, entry, 'failure' in entry ? { ttl: this.options.failureTtlMs } : {});
      });
      this.inFlight.set(source, started);
      shared = started;
    }
    const fetching = shared;
    fetching.waiting += 1;
    if (!signal) return fetching.result;
    return new Promise<Remembered>((resolve, reject) => {
      const leave = () => {
        reject(signal.reason);
        fetching.waiting -= 1;
        if (fetching.waiting === 0) {
          // Nobody waits for it any more: a later preview starts a fetch of its own.
          if (this.inFlight.get(source) === fetching) this.inFlight.delete(source);
          fetching.stop.abort(signal.reason);
        }
      };
      signal.addEventListener('abort', leave, { once: true });
      fetching.result.then((entry) => {
        signal.removeEventListener('abort', leave);
        resolve(entry);
      });
    });
  }
}
