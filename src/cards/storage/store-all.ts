// Stores the images of one request all-or-nothing: uploads run in parallel (bounded), the first
// failure cancels the rest, and every object the request may have written is deleted again before
// the request answers 502 storage_failed (or 504, when its deadline passed first).
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Logger } from '../logger.js';
import pLimit from 'p-limit';
import { CardError } from '../errors.js';
import { eitherSignal } from '../deadlines.js';
import type { OutputFormat } from '../render/render-cards.js';
import type { PendingDeletions } from './pending-deletions.js';
import { StorageError } from './storage-error.js';
import { contentTypeOf, extensionOf, type Storage } from './storage.js';

/** Uploads of one request in flight at once: enough to hide latency, few enough not to flood the store. */
const uploadConcurrency = 6;

export interface StoredImage {
  url: string;
  fileName: string;
  width: number;
  height: number;
  /** Kilobytes (1,024 bytes) with two decimals, as MD2Card reports an image's size (e.g. 218.88). */
  size: number;
  /** The exact size in bytes. */
  bytes: number;
  /** What the card shows, as text, for the alt field of a post (see RenderedImage.alt). */
  alt: string;
  /** For a PDF: its pages, one per card. */
  pages?: number;
}

/** Another file stored with the images, in the same all-or-nothing batch (a saved request). */
export interface FileToStore {
  fileName: string;
  data: Buffer;
  contentType: string;
}

/** Kilobytes with two decimals, MD2Card's `size`. */
export const kilobytes = (bytes: number) => Math.round((bytes / 1024) * 100) / 100;

export interface ImageToStore {
  data: Buffer;
  format: OutputFormat;
  width: number;
  height: number;
  alt: string;
  pages?: number;
}

export interface StoreTarget {
  storage: Storage;
  log: Logger;
  /** Where deletions that failed right away are retried; without it they are only logged. */
  pendingDeletions?: PendingDeletions;
}

/**
 * Object names are `screenshots/<ms since epoch>_<96 random bits>.<ext>`: unguessable, so one URL
 * never reveals another, and time-ordered for operators browsing the bucket.
 */
export function newFileName(format: OutputFormat): string {
  return `screenshots/${Date.now()}_${randomBytes(12).toString('hex')}.${extensionOf[format]}`;
}

export async function storeAll(target: StoreTarget, images: ImageToStore[], signal: AbortSignal, files: FileToStore[] = []): Promise<StoredImage[]> {
  const stored: StoredImage[] = images.map((image) => {
    const fileName = newFileName(image.format);
    const bytes = image.data.length;
    const pages = image.pages === undefined ? {} : { pages: image.pages };
    return { url: target.storage.url(fileName), fileName, width: image.width, height: image.height, size: kilobytes(bytes), bytes, alt: image.alt, ...pages };
  });
  const toUpload: FileToStore[] = [
    ...images.map((image, index) => ({ fileName: stored[index]!.fileName, data: image.data, contentType: contentTypeOf[image.format] })),
    ...files,
  ];

  // One failed upload makes the whole request fail, so the uploads still running are cancelled.
  const firstFailure = new AbortController();
  // Both sources held strongly (AbortSignal.any holds them weakly; see src/cards/deadlines.ts).
  const uploads = eitherSignal(signal, firstFailure.signal);
  const uploadSignal = uploads.signal;
  // Every upload and each of its retries listens to this signal; it lives only as long as the request.
  setMaxListeners(0, uploadSignal);
  const limit = pLimit(uploadConcurrency);
  /** Every name whose upload started: any of them may exist in the store, even after an error. */
  const started: string[] = [];
  /** Uploads cancelled in flight: the store may still finish writing them after it is told to delete. */
  const cutOff: string[] = [];
  let failure: unknown;
  await Promise.all(
    toUpload.map(({ fileName, data, contentType }) =>
      limit(async () => {
        if (uploadSignal.aborted) return;
        started.push(fileName);
        try {
          await target.storage.put(fileName, data, contentType, uploadSignal);
        } catch (error) {
          if (uploadSignal.aborted && error === uploadSignal.reason) cutOff.push(fileName);
          if (failure === undefined) {
            failure = error;
            firstFailure.abort(error);
          }
        }
      }),
    ),
  );
  uploads.clear();
  if (failure === undefined) return stored;

  const undeleted = await deleteAll(target, started);
  // A second pass a moment later removes what landed after the first one.
  target.pendingDeletions?.add([...new Set([...undeleted, ...cutOff])]);
  if (signal.aborted) throw signal.reason;
  const reason = failure instanceof StorageError ? failure.message : 'the store did not accept them';
  target.log.error({ err: failure, images: images.length }, `storing the images failed: ${reason}`);
  throw storageFailed(reason, failure);
}

/** The failure of a request whose images could not all be stored; `reason` is safe to show. */
export const storageFailed = (reason: string, cause?: unknown) =>
  new CardError('storage_failed', `Could not store the images: ${reason}. Nothing was stored; retry when the store is available.`, { cause });

/** Best effort, logged; answers the names that could not be deleted now. */
async function deleteAll(target: StoreTarget, fileNames: string[]): Promise<string[]> {
  const limit = pLimit(uploadConcurrency);
  const undeleted: string[] = [];
  await Promise.all(
    fileNames.map((fileName) =>
      limit(() =>
        target.storage.delete(fileName).catch((error: unknown) => {
          undeleted.push(fileName);
          target.log.warn({ err: error, fileName }, 'could not delete an object of a failed request yet');
        }),
      ),
    ),
  );
  return undeleted;
}
