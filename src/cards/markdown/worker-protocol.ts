// The messages between the Markdown pool (main thread) and its workers. Images are fetched by the
// main thread (its SSRF guard, caches and request deadline stay in one place) and diagrams are
// drawn by it (in the browser), never while a worker waits: a document that shows any is rendered
// twice (markdown-pool.ts). The first pass answers with what the document asks for; the second is
// given every answer with the task, so nothing in a worker waits for the main thread.
import type { DrawnDiagram } from '../diagrams/diagram-page.js';
import type { CardErrorKind } from '../errors.js';

export interface MarkdownTask {
  markdown: string;
  mdxMode: boolean;
  hashtags: boolean;
  /** Whether remote images are fetched at all (else every one is a placeholder); SVG data: images are drawn either way. */
  fetchImages: boolean;
  /** Whether Mermaid diagrams are drawn (else they stay code blocks, as without a drawer). */
  drawDiagrams: boolean;
  /**
   * What the main thread fetched and drew for the document's first pass; absent in the first pass,
   * which records what the document asks for instead.
   */
  answers?: DocumentAnswers;
  /** The document's own channel for its progress; transferred with the task. */
  port: import('node:worker_threads').MessagePort;
}

/** What a document asks of the main thread, in the order its pipeline asked. */
export interface DocumentAsks {
  /** http(s) images to fetch and SVG `data:` images to draw as PNG, once per image shown (a source may repeat). */
  images: string[];
  /** Mermaid sources to draw, once per diagram. */
  diagrams: string[];
}

/** Every answer to a document's asks, by image source and by diagram source. */
export interface DocumentAnswers {
  images: Map<string, FetchedOrRefused>;
  diagrams: Map<string, DrawnDiagram>;
}

/** One image's bytes, or the address it is shown from (a preview's, see ImageLinker), or why there are none. */
export type FetchedOrRefused =
  | { ok: true; mimeType: string; bytes: Uint8Array; width: number; height: number; cssWidth?: number }
  | { ok: true; mimeType: string; link: string; byteLength: number; width: number; height: number; cssWidth?: number }
  | { ok: false; message: string };

export type MarkdownTaskResult =
  | { type: 'html'; html: string; imageFailures: { src: string; reason: string }[] }
  /** The first pass of a document that shows images or diagrams: what to fetch and draw before the second. */
  | { type: 'asks'; asks: DocumentAsks }
  | { type: 'refused'; kind: CardErrorKind; message: string };

/** Worker → main. `start` comes first, with the worker's kernel thread id when it has one (Linux). */
export type WorkerMessage = { type: 'start'; threadId?: number } | { type: 'stage'; stage: string };

/** What every worker is started with (piscina's workerData). */
export interface WorkerSettings {
  /**
   * The shared board of which workers have warmed what loads on first use (worker-warmth.ts): the
   * pool's go-ahead for those warm-ups, each worker's turn, and what it has warmed.
   */
  warmth: Int32Array;
}

/**
 * Documents that load each lazily imported part once: Shiki with the grammars of the two languages
 * most used on GitHub (Python, then JavaScript and TypeScript: GitHub's Octoverse 2024), KaTeX, and
 * the MDX checks. Each is [markdown, mdxMode]. TypeScript's grammar comes first: it is the dearest
 * to load (about 100 ms of CPU, most of it V8 compiling its patterns on their first match), and a
 * first JavaScript block then costs 40–55 ms instead of 60–85; Python's adds 25–40 ms. Other
 * grammars load when a document first uses them, once per worker: 7–110 ms of CPU each (their
 * patterns translated at build time: regex-translations.ts). Warming ten of them cost about 0.55 s
 * of CPU per worker at every start, a tenth of what a start costs, for a saving of some 50 ms on
 * the first block of each language.
 */
export const lazyWarmUpDocuments: ReadonlyArray<readonly [string, boolean]> = [
  ['```ts\nconst a = 1;\n```', false],
  ['```python\nprint(sum(range(3)))\n```', false],
  ['$x^2$ and $$\\frac{a}{b}$$', false],
  ['<Callout>x</Callout>', true],
];
