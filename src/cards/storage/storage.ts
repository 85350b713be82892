// Where generated images go. Small on purpose: every driver (local directory, S3-compatible
// object store) implements these six operations and nothing else.

export interface Storage {
  /** Stores `body` under `key` (e.g. "screenshots/1700000000000_ab12….png"). All-or-nothing. */
  put(key: string, body: Buffer, contentType: string, signal?: AbortSignal): Promise<void>;
  /** The body stored under `key`, or undefined when there is none (read back: saved requests). */
  get(key: string): Promise<Buffer | undefined>;
  /** Whether an object is stored under `key` (a shared render-cache entry checks its images are still there). */
  exists(key: string): Promise<boolean>;
  /** Removes `key`; removing a key that does not exist is not an error. */
  delete(key: string): Promise<void>;
  /** The absolute public URL of `key`. */
  url(key: string): string;
  /** Resolves when the store can be written to; rejects with a message saying what is wrong. */
  health(): Promise<void>;
}

export const contentTypeOf = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  pdf: 'application/pdf',
} as const;

/** File extension of each image format. */
export const extensionOf = {
  png: 'png',
  jpeg: 'jpg',
  webp: 'webp',
  pdf: 'pdf',
} as const;
