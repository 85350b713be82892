// The messages between the Markdown pool (main thread) and its workers, over one MessagePort per
// document. Images are fetched by the main thread (its SSRF guard, caches and request deadline stay
// in one place); the worker asks for each one and waits for the bytes.
import type { CardErrorKind } from '../errors.js';

export interface MarkdownTask {
  markdown: string;
  mdxMode: boolean;
  hashtags: boolean;
  /** Whether remote images are fetched at all (else every one is a placeholder, as without a fetcher). */
  fetchImages: boolean;
  /** The document's own channel; transferred with the task. */
  port: import('node:worker_threads').MessagePort;
}

export type MarkdownTaskResult =
  | { ok: true; html: string; imageFailures: { src: string; reason: string }[] }
  | { ok: false; kind: CardErrorKind; message: string };

/** Worker → main. `start` comes first, with the worker's kernel thread id when it has one (Linux). */
export type WorkerMessage =
  | { type: 'start'; threadId?: number }
  | { type: 'stage'; stage: string }
  | { type: 'image'; id: number; src: string };

/** Main → worker: one image's bytes, or why there are none. */
export type ImageAnswer =
  | { type: 'image'; id: number; ok: true; mimeType: string; bytes: Uint8Array; width: number; height: number }
  | { type: 'image'; id: number; ok: false; message: string };
