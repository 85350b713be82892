// The body of a Markdown worker thread (see markdown-pool.ts): runs the whole Markdown pipeline
// (parse, MDX, Shiki, KaTeX, sanitizer) for one document, so a slow document costs a worker, never
// the event loop that answers every other request. Remote images are asked of the main thread.
import fs from 'node:fs';
import os from 'node:os';
import type { MessagePort } from 'node:worker_threads';
import { CardError } from '../errors.js';
import { RemoteImageRefused, type FetchedImage, type ImageSource } from '../images/remote-image-fetcher.js';
import { renderMarkdown } from './render-markdown.js';
import type { DrawnDiagram } from '../diagrams/diagram-page.js';
import type { DiagramDrawer } from './mermaid-diagrams.js';
import type { DiagramAnswer, ImageAnswer, MarkdownTask, MarkdownTaskResult, WorkerMessage } from './worker-protocol.js';

// Workers yield the CPU to the main thread (which answers every request, /health included) and to
// the browser: on Linux a thread has its own nice value, set through its kernel thread id.
// Elsewhere (or without permission) the worker simply runs at the process's priority.
// Mild: a waking main thread gets the CPU first, while documents still get a fair share next to
// other processes at normal priority.
const workerNiceness = 5;
// The same id lets the pool read this thread's own CPU time (markdown-pool.ts).
let threadId: number | undefined;
try {
  threadId = Number(fs.readlinkSync('/proc/thread-self').split('/').pop()) || undefined;
  if (threadId) os.setPriority(threadId, Math.min(19, os.getPriority(threadId) + workerNiceness));
} catch {
  // Not Linux: no per-thread priority, and the pool measures busy time instead of CPU time.
}

// Every worker loads the whole pipeline (Shiki and its wasm, KaTeX, MDX) once when it starts, so
// no document's CPU budget pays for loading it.
const warmedUp = renderMarkdown('# Warm-up\n\n**bold** $x^2$\n\n```ts\nconst a = 1;\n```', { mdxMode: false })
  .then(() => renderMarkdown('<Callout>x</Callout>', { mdxMode: true }))
  .catch(() => undefined);

/** An ImageSource that asks the main thread, which fetches through the real one. */
class MainThreadImages implements ImageSource {
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (image: FetchedImage) => void; reject: (error: Error) => void }>();

  constructor(private readonly port: MessagePort) {
    port.on('message', (answer: ImageAnswer | DiagramAnswer) => {
      if (answer.type !== 'image') return;
      const pending = this.waiting.get(answer.id);
      if (!pending) return;
      this.waiting.delete(answer.id);
      if (answer.ok) {
        const bytes = Buffer.from(answer.bytes.buffer, answer.bytes.byteOffset, answer.bytes.byteLength);
        pending.resolve({ mimeType: answer.mimeType, bytes, width: answer.width, height: answer.height });
      } else {
        pending.reject(new RemoteImageRefused(answer.message));
      }
    });
  }

  fetch(source: string): Promise<FetchedImage> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.port.postMessage({ type: 'image', id, src: source } satisfies WorkerMessage);
    });
  }
}

/** A DiagramDrawer that asks the main thread, which draws in the browser. */
class MainThreadDiagrams implements DiagramDrawer {
  private nextId = 0;
  private readonly waiting = new Map<number, (drawn: DrawnDiagram) => void>();

  constructor(private readonly port: MessagePort) {
    port.on('message', (answer: ImageAnswer | DiagramAnswer) => {
      if (answer.type !== 'diagram') return;
      this.waiting.get(answer.id)?.(answer.drawn);
      this.waiting.delete(answer.id);
    });
  }

  draw(source: string): Promise<DrawnDiagram> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.port.postMessage({ type: 'diagram', id, source } satisfies WorkerMessage);
    });
  }
}

export default async function renderInWorker(task: MarkdownTask): Promise<MarkdownTaskResult> {
  const { port } = task;
  await warmedUp;
  port.postMessage({ type: 'start', threadId } satisfies WorkerMessage);
  try {
    const { html, imageFailures } = await renderMarkdown(task.markdown, {
      mdxMode: task.mdxMode,
      hashtags: task.hashtags,
      remoteImages: task.fetchImages ? new MainThreadImages(port) : undefined,
      diagrams: task.drawDiagrams ? new MainThreadDiagrams(port) : undefined,
      progress: (stage) => port.postMessage({ type: 'stage', stage } satisfies WorkerMessage),
    });
    return { ok: true, html, imageFailures };
  } catch (error) {
    // Domain errors cross the thread boundary as values: a thrown error would lose its kind.
    if (error instanceof CardError) return { ok: false, kind: error.kind, message: error.message };
    throw error;
  } finally {
    port.close();
  }
}
