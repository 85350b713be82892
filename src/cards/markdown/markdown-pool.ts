// Markdown → HTML off the main thread: every document is rendered by renderMarkdown in one of a
// fixed set of worker threads (piscina), so parsing, Shiki, KaTeX and MDX never hold up the event
// loop that answers /health and every other request.
//
// Images and diagrams stay on the main thread, and no worker waits for them (they may take
// seconds: a slow image host, SVG drawings one at a time, Mermaid in the browser), so a document's
// waits never hold a worker another request needs. A document is rendered in one or two passes:
// - the first pass renders it recording what it shows that must be fetched or drawn (remote images,
//   SVG images, fetched or data: URLs, and Mermaid diagrams: document-asks.ts). A document that
//   shows none (most of them) is done: that pass is its HTML;
// - otherwise the pass answers with that list, and the main thread fetches and draws all of it with
//   no worker held (answer-asks.ts: the caller's ImageSource, SvgRasterizer and DiagramDrawer,
//   under its deadline, each image charged by beforeImage before);
// - the second pass renders the document again with every answer given up front: nothing to wait
//   for, and exactly the HTML (and image failures) one pass waiting for each answer would make.
//
// Each document gets a CPU time budget (MARKDOWN_CPU_LIMIT_MS, README.md "Limits") that both passes
// spend (cpu-budget.ts). A document over budget is stopped by terminating its worker (piscina starts
// a fresh one) and answered with a 400 naming the stage it was in.
//
// Previews (no key needed) may hold at most all workers but one with each pass (and wait in a
// bounded queue of their own for it), so a request with a key always finds a worker that previews
// cannot hold.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import pLimit from 'p-limit';
import { abortable } from '../deadlines.js';
import { CardError } from '../errors.js';
import type { SvgRasterizer } from '../images/svg-raster.js';
import type { RenderLane } from '../render/renderer.js';
import { answerAsks, type ImageLinker } from './answer-asks.js';
import { CpuBudget } from './cpu-budget.js';
import { precheckMarkdown } from './document-limits.js';
import type { RenderedMarkdown, RenderMarkdownOptions } from './render-markdown.js';
import type { MarkdownTask, MarkdownTaskResult, WorkerMessage, WorkerSettings } from './worker-protocol.js';
import { WorkerWarmth } from './worker-warmth.js';

// piscina's CommonJS build, by `require`: it loads in half the time of what `import` loads (23
// against 45 ms in a cold process), on the main thread at every start (as src/sharp.ts does for sharp).
const { Piscina } = createRequire(import.meta.url)('piscina') as typeof import('piscina');
type Piscina<T, R> = import('piscina').Piscina<T, R>;

export interface MarkdownPoolOptions {
  /** Worker threads (MARKDOWN_THREADS). */
  threads: number;
  /** CPU time one document may use in its worker, in ms (MARKDOWN_CPU_LIMIT_MS). */
  cpuLimitMs: number;
  /** Documents that may wait for a worker; beyond, 503 (QUEUE_MAX). */
  queueMax: number;
  /** Previews' documents that may wait for one of the previews' workers; beyond, 503 (PREVIEW_QUEUE_MAX). */
  previewQueueMax?: number;
}

export interface MarkdownTaskOptions extends RenderMarkdownOptions {
  /** What a document is rendered for: a request, or a preview, which may hold fewer workers (see above). */
  lane?: RenderLane;
  /** Draws the SVG images the document shows (the core's, with its drawing limits); without it they are placeholders. */
  svgImages?: SvgRasterizer;
  /** Shows the fetched and drawn images by address instead of inlining them (a preview shown as markup). */
  linkImages?: ImageLinker;
}

/** Heap of one worker; a document that needs more is stopped like one over its CPU budget. */
export const workerMemoryLimitMb = 512;
/**
 * Young generation of one worker. V8 lets it grow to 48 MB under a steady stream of documents,
 * space a worker keeps for good; 12 MB took some 25 MB off the service after 400 cards
 * (`npm run bench:compare`) with no change in a card's time.
 */
const workerYoungGenerationMb = 12;

/** The pool's options from the service's settings (src/config.ts names them). */
export function markdownPoolOptions(settings: { markdownThreads: number; markdownCpuLimitMs: number; queueMax: number; previewQueueMax?: number }): MarkdownPoolOptions {
  return {
    threads: settings.markdownThreads,
    cpuLimitMs: settings.markdownCpuLimitMs,
    queueMax: settings.queueMax,
    previewQueueMax: settings.previewQueueMax,
  };
}

// From source (tsx) this module is .ts and so is its worker; from dist/ both are .js.
const workerFile = new URL(`./markdown-worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url).href;

/** Hints for the stage a document ran out of time in. */
function hintFor(stage: string): string {
  if (stage.startsWith('parsing')) return ' Long runs of *, _, [ or ` are the usual cause.';
  if (stage.startsWith('highlighting')) return ' Shorten its longest lines, or drop the language to show it as plain text.';
  if (stage.startsWith('rendering the math')) return ' Use fewer or simpler formulas.';
  return '';
}

/**
 * The worker threads of one core (createCards makes it, or is handed one: the service opens it
 * early, see http/run-server.ts). warmUp() waits until every worker has loaded the pipeline's core;
 * warmLazyParts() then has them load what the first code block, formula or MDX document would, in
 * the background, one worker after another (the workers run at a lower priority), and documents go
 * to a warm worker first (worker-warmth.ts).
 */
export class MarkdownPool {
  private closed?: Promise<void>;
  readonly piscina: Piscina<MarkdownTask, MarkdownTaskResult>;
  /** What the workers have warmed (worker-warmth.ts): documents go to a warm worker first. */
  private readonly warmth = new WorkerWarmth();
  /** Previews' documents in the workers at once: all workers but one. */
  private readonly previewAdmission: ReturnType<typeof pLimit>;

  constructor(readonly options: MarkdownPoolOptions) {
    this.previewAdmission = pLimit(Math.max(1, options.threads - 1));
    this.piscina = new Piscina({
      filename: workerFile,
      minThreads: options.threads,
      maxThreads: options.threads,
      maxQueue: options.queueMax,
      // Workers wait for their next task on their event loop, not blocked in Atomics.wait.
      atomics: 'disabled',
      resourceLimits: { maxOldGenerationSizeMb: workerMemoryLimitMb, maxYoungGenerationSizeMb: workerYoungGenerationMb },
      workerData: { warmth: this.warmth.cells } satisfies WorkerSettings,
      loadBalancer: this.warmth.warmFirst(),
    });
    // A worker that dies between documents (e.g. killed for its CPU budget) is replaced by piscina;
    // without a listener the pool's 'error' event would end the process.
    this.piscina.on('error', () => {});
  }

  /** renderMarkdown, in a worker of this pool. Same options (and the lane and SVG drawer), same result. */
  render(markdown: string, { lane = 'requests', ...options }: MarkdownTaskOptions = {}): Promise<RenderedMarkdown> {
    if (lane === 'previews') {
      options.signal?.throwIfAborted();
      if (this.previewAdmission.pendingCount >= (this.options.previewQueueMax ?? 4)) {
        return Promise.reject(new CardError('busy', 'Every Markdown worker open to previews is busy and their queue is full; retry in a moment.', { retryAfterSeconds: 1 }));
      }
    }
    // The caller stops waiting at once (a preview waiting for its turn too, which then ends at once).
    const rendered = this.renderDocument(markdown, options, lane);
    return options.signal ? abortable(rendered, options.signal) : rendered;
  }

  private async renderDocument(markdown: string, options: Omit<MarkdownTaskOptions, 'lane'>, lane: RenderLane): Promise<RenderedMarkdown> {
    options.signal?.throwIfAborted();
    // Linear scans, here as well as in the worker: a document they refuse never waits for one.
    precheckMarkdown(markdown);
    const budget = new CpuBudget(this.options.cpuLimitMs);
    const task: Omit<MarkdownTask, 'port'> = {
      markdown,
      mdxMode: options.mdxMode ?? false,
      hashtags: options.hashtags !== false,
      fetchImages: options.remoteImages !== undefined,
      drawDiagrams: options.diagrams !== undefined,
    };
    let result = await this.runPass(task, [], budget, lane, options.signal);
    if (result.type === 'asks') {
      // No worker is held while the images are fetched and the diagrams drawn.
      const { answers, transfer } = await answerAsks(result.asks, options, lane);
      result = await this.runPass({ ...task, answers }, transfer, budget, lane, options.signal);
    }
    if (result.type === 'html') return { html: result.html, imageFailures: result.imageFailures, cpuMs: budget.spentMs };
    if (result.type === 'refused') throw new CardError(result.kind, result.message);
    // The second pass was given an answer to every ask of the first, and the pipeline asks the same again.
    throw new Error('the Markdown worker asked for images or diagrams again in its second pass');
  }

  /** One pass of a document in a worker, in its lane's turn: the previews' turns leave one worker to requests. */
  private runPass(
    task: Omit<MarkdownTask, 'port'>,
    transfer: ArrayBuffer[],
    budget: CpuBudget,
    lane: RenderLane,
    signal: AbortSignal | undefined,
  ): Promise<MarkdownTaskResult> {
    const pass = () => this.runInWorker(task, transfer, budget, signal);
    return lane === 'previews' ? this.previewAdmission(pass) : pass();
  }

  private async runInWorker(task: Omit<MarkdownTask, 'port'>, transfer: ArrayBuffer[], budget: CpuBudget, signal: AbortSignal | undefined): Promise<MarkdownTaskResult> {
    signal?.throwIfAborted();
    const { port1, port2 } = new MessageChannel();
    const kill = new AbortController();
    let stage = 'waiting for a worker';
    let started = false;
    port1.on('message', (message: WorkerMessage) => {
      if (message.type === 'start') {
        started = true;
        stage = 'starting';
        budget.start(message.threadId, () => kill.abort());
      } else {
        stage = message.stage;
      }
    });
    // A document still queued when its caller stops waiting is taken off the queue; one already
    // running finishes (within its budget) so its worker is not thrown away for nothing.
    const takeOffQueue = () => {
      if (!started) kill.abort();
    };
    signal?.addEventListener('abort', takeOffQueue, { once: true });
    try {
      return await this.piscina.run({ ...task, port: port2 } satisfies MarkdownTask, { transferList: [port2, ...transfer], signal: kill.signal });
    } catch (error) {
      throw this.failure(error, budget.expired, stage);
    } finally {
      budget.end();
      port1.close();
      signal?.removeEventListener('abort', takeOffQueue);
    }
  }

  private failure(error: unknown, overBudget: boolean, stage: string): unknown {
    if (error instanceof CardError) return error;
    if (overBudget) {
      return new CardError(
        'content_too_large',
        `The document needed more than ${this.options.cpuLimitMs.toLocaleString('en-US')} ms of CPU time to turn into HTML and was stopped while ${stage}.${hintFor(stage)}`,
      );
    }
    if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return new CardError('content_too_large', `The document needed more than ${workerMemoryLimitMb} MB of memory to turn into HTML and was stopped while ${stage}.`);
    }
    if (error instanceof Error && error.message === 'Task queue is at limit') {
      return new CardError('busy', 'Every Markdown worker is busy and the queue is full; retry in a moment.', { retryAfterSeconds: 1 });
    }
    return error;
  }

  /** Waits until every worker has loaded its module (the pipeline's core), a small document each. */
  warmUp(): Promise<unknown> {
    const document = '# Warm-up\n\n**bold** *em* `code`\n\n- item\n\n| a |\n|---|\n| 1 |';
    return Promise.all(Array.from({ length: this.options.threads }, () => this.render(document)));
  }

  /** Lets the workers, now and later, warm Shiki, KaTeX and MDX in the background, one after another. */
  warmLazyParts(): void {
    this.warmth.goAhead();
  }

  /** Ends the workers; closing again waits for the same. */
  close(): Promise<void> {
    this.closed ??= this.piscina.destroy();
    return this.closed;
  }
}
