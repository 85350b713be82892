// The messages between the Markdown pool (main thread) and its workers, over one MessagePort per
// document. Images are fetched by the main thread (its SSRF guard, caches and request deadline stay
// in one place) and diagrams are drawn by it (in the browser); the worker asks for each one and
// waits for the bytes.
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
  /** An http(s) image to fetch, or an SVG `data:` image to draw as PNG. */
  | { type: 'image'; id: number; src: string }
  | { type: 'diagram'; id: number; source: string };

/** Main → worker: one image's bytes, or why there are none. */
export type ImageAnswer =
  | { type: 'image'; id: number; ok: true; mimeType: string; bytes: Uint8Array; width: number; height: number; cssWidth?: number }
  | { type: 'image'; id: number; ok: false; message: string };

/** Main → worker: one diagram drawn, or why it could not be. */
export type DiagramAnswer = { type: 'diagram'; id: number; drawn: DrawnDiagram };

/** What every worker is started with (piscina's workerData). */
export interface WorkerSettings {
  /**
   * One Int32 the pool sets to 1 (and notifies) once the service is ready: from then on workers,
   * including ones started later, warm what loads on first use (markdown-worker.ts).
   */
  warmUpFlag: Int32Array;
}

/**
 * Documents that load each lazily imported part once: Shiki with the languages cards use most,
 * KaTeX, and the MDX checks. Each is [markdown, mdxMode].
 */
export const lazyWarmUpDocuments: ReadonlyArray<readonly [string, boolean]> = [
  ['```ts\nconst a = 1;\n```', false],
  ['$x^2$ and $$\\frac{a}{b}$$', false],
  ['<Callout>x</Callout>', true],
  ...['js', 'python', 'bash', 'json', 'css', 'java', 'go', 'rust', 'sql', 'yaml'].map(
    (language) => [`\`\`\`${language}\nx\n\`\`\``, false] as const,
  ),
];
