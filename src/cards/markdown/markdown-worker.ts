// The body of a Markdown worker thread (see markdown-pool.ts): runs the whole Markdown pipeline
// (parse, MDX, Shiki, KaTeX, sanitizer) for one document, so a slow document costs a worker, never
// the event loop that answers every other request. A worker never waits for the main thread: a
// document's first pass records the images and diagrams it shows and answers with that list when
// there are any; its second pass is given them fetched and drawn (document-asks.ts).
import fs from 'node:fs';
import { workerData } from 'node:worker_threads';
import { CardError } from '../errors.js';
import { yieldToRequests } from '../background-priority.js';
import { AskedDiagrams, AskedImages } from './document-asks.js';
import { renderMarkdown } from './render-markdown.js';
import { lazyWarmUpDocuments, type MarkdownTask, type MarkdownTaskResult, type WorkerMessage, type WorkerSettings } from './worker-protocol.js';

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
// checks) is warmed in the background once every worker has its core (the pool raises the shared
// flag of WorkerSettings, while Chromium is still starting: a code block right after ready then
// pays nothing), at the workers' lower priority, and only while no real document is in progress; a
// document that needs one of them before then waits for the same load, never a second one.
const { warmUpFlag } = workerData as WorkerSettings;
/** Real documents being rendered now, and the warm-up waiting for there to be none. */
let documentsInProgress = 0;
const idleWaiters: Array<() => void> = [];
waitForReady(warmUpFlag)
  .then(() => warmLazyParts())
  .catch(() => undefined);

// Node 20 has Atomics.waitAsync; TypeScript declares it from ES2024, beyond this project's target.
type WaitAsync = (array: Int32Array, index: number, value: number) => { async: boolean; value: Promise<string> | string };

async function waitForReady(flag: Int32Array): Promise<void> {
  const waiting = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync(flag, 0, 0);
  if (waiting.async) await waiting.value;
}

/**
 * Renders one small document per lazy part, only while no real document is in progress: a request
 * that arrives meanwhile waits at most for the part being loaded, then has the thread to itself.
 */
async function warmLazyParts(): Promise<void> {
  for (const [markdown, mdxMode] of lazyWarmUpDocuments) {
    await new Promise((resolve) => setImmediate(resolve));
    while (documentsInProgress > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
    await renderMarkdown(markdown, { mdxMode }).catch(() => undefined);
  }
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
