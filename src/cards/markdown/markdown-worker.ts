// The body of a Markdown worker thread (see markdown-pool.ts): runs the whole Markdown pipeline
// (parse, MDX, Shiki, KaTeX, sanitizer) for one document, so a slow document costs a worker, never
// the event loop that answers every other request. A worker never waits for the main thread: a
// document's first pass records the images and diagrams it shows and answers with that list when
// there are any; its second pass is given them fetched and drawn (document-asks.ts).
import fs from 'node:fs';
import { threadId as workerThreadId, workerData } from 'node:worker_threads';
import { CardError } from '../errors.js';
import { yieldToRequests } from '../background-priority.js';
import { AskedDiagrams, AskedImages } from './document-asks.js';
import { renderMarkdown } from './render-markdown.js';
import { lazyWarmUpDocuments, type MarkdownTask, type MarkdownTaskResult, type WorkerMessage, type WorkerSettings } from './worker-protocol.js';
import { WorkerWarmth, warmth } from './worker-warmth.js';

// Workers yield the CPU to the main thread and the browser (background-priority.ts); the same id
// lets the pool read this thread's own CPU time (markdown-pool.ts).
let threadId: number | undefined;
try {
  threadId = Number(fs.readlinkSync('/proc/thread-self').split('/').pop()) || undefined;
} catch {
  // Not Linux: no per-thread priority, and the pool measures busy time instead of CPU time.
}
if (threadId) yieldToRequests(threadId);

// The pipeline's core (parse, GFM, sanitizer) is imported with this module, before the worker
// takes its first document. What loads on first use (Shiki and its grammars, KaTeX, the MDX
// checks) is warmed in the background once every worker has its core (the pool's go-ahead, while
// Chromium is still starting), one worker after another in the order they started
// (worker-warmth.ts), at the workers' lower priority, and only while no real document is in
// progress; a document that needs one of them before then waits for the same load, never a second
// one.
const board = new WorkerWarmth((workerData as WorkerSettings).warmth);
const slot = board.claimSlot(workerThreadId);
/** Real documents being rendered now, and the warm-up waiting for there to be none. */
let documentsInProgress = 0;
const idleWaiters: Array<() => void> = [];
board
  .waitForTurn(slot)
  .then(() => warmLazyParts())
  .catch(() => undefined);

/**
 * Renders one small document per lazy part, only while no real document is in progress: a request
 * that arrives meanwhile waits at most for the part being loaded, then has the thread to itself.
 */
async function warmLazyParts(): Promise<void> {
  board.set(slot, warmth.warming);
  for (const [markdown, mdxMode] of lazyWarmUpDocuments) {
    await new Promise((resolve) => setImmediate(resolve));
    while (documentsInProgress > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
    await renderMarkdown(markdown, { mdxMode }).catch(() => undefined);
  }
  board.set(slot, warmth.warm);
}

export default async function renderInWorker(task: MarkdownTask): Promise<MarkdownTaskResult> {
  const { port } = task;
  documentsInProgress++;
  port.postMessage({ type: 'start', threadId } satisfies WorkerMessage);
  try {
    // Always there: SVG images are drawn as PNG by the main thread even when none are fetched.
    const images = new AskedImages(task.answers?.images);
    const diagrams = task.drawDiagrams ? new AskedDiagrams(task.answers?.diagrams) : undefined;
    const { html, imageFailures } = await renderMarkdown(task.markdown, {
      mdxMode: task.mdxMode,
      hashtags: task.hashtags,
      remoteImages: images,
      fetchRemote: task.fetchImages,
      diagrams,
      // A first pass is thrown away once it has asked for something: it ends there.
      ...(task.answers ? {} : { endOnceAsked: () => images.asked.length > 0 || (diagrams?.asked.length ?? 0) > 0 }),
      progress: (stage) => port.postMessage({ type: 'stage', stage } satisfies WorkerMessage),
    });
    // A first pass that asked for nothing is the document's HTML: most documents have a single pass.
    const asks = { images: images.asked, diagrams: diagrams?.asked ?? [] };
    if (asks.images.length > 0 || asks.diagrams.length > 0) return { type: 'asks', asks };
    return { type: 'html', html, imageFailures };
  } catch (error) {
    // Domain errors cross the thread boundary as values: a thrown error would lose its kind.
    if (error instanceof CardError) return { type: 'refused', kind: error.kind, message: error.message };
    throw error;
  } finally {
    port.close();
    if (--documentsInProgress === 0) for (const wake of idleWaiters.splice(0)) wake();
  }
}
