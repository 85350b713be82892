// Markdown → HTML off the main thread: every document is rendered by renderMarkdown in one of a
// fixed set of worker threads (piscina), so parsing, Shiki, KaTeX and MDX never hold up the event
// loop that answers /health and every other request.
//
// Each document gets a CPU time budget (MARKDOWN_CPU_LIMIT_MS, README.md "Limits"): the CPU time its
// worker thread uses on it, read from the kernel's per-thread accounting (/proc) every 50 ms, so a
// busy machine or the workers' lower priority never counts against a document. Where there is no
// /proc, the worker's busy wall time is counted instead (never less than its CPU time), without
// the waits for remote images. A document over budget is stopped by terminating its worker
// (piscina starts a fresh one) and answered with a 400 naming the stage it was in.
//
// A document keeps its worker while it waits for its images and diagrams, which may take seconds:
// previews (no key needed) may hold at most all workers but one (and wait in a bounded queue of
// their own for it), so a request with a key always finds a worker that previews cannot hold.
//
// Images and diagrams stay on the main thread: the worker asks for each one over the document's
// MessagePort and gets the bytes fetched by the caller's ImageSource (or drawn by its
// DiagramDrawer, in the browser) under the caller's deadline, so the HTML is exactly what
// renderMarkdown alone makes. SVG images (fetched, or data: URLs the worker found) come back
// drawn as PNG by images/svg-raster.ts.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import pLimit from 'p-limit';
import { Piscina } from 'piscina';
import { abortable } from '../deadlines.js';
import { CardError } from '../errors.js';
import type { FetchedImage } from '../images/remote-image-fetcher.js';
import { decodeDataUrl } from '../images/sniff-image.js';
import type { SvgRasterizer } from '../images/svg-raster.js';
import { precheckMarkdown } from './document-limits.js';
import type { RenderedMarkdown, RenderMarkdownOptions } from './render-markdown.js';
import type { RenderLane } from '../render/renderer.js';
import type { DiagramDrawer } from './mermaid-diagrams.js';
import type { DiagramAnswer, ImageAnswer, MarkdownTask, MarkdownTaskResult, WorkerMessage, WorkerSettings } from './worker-protocol.js';

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
 * the background (the workers run at a lower priority).
 */
export class MarkdownPool {
  private closed?: Promise<void>;
  readonly piscina: Piscina<MarkdownTask, MarkdownTaskResult>;
  /** Raised once the service is ready: workers then warm what loads on first use (WorkerSettings). */
  private readonly warmUpFlag = new Int32Array(new SharedArrayBuffer(4));
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
      workerData: { warmUpFlag: this.warmUpFlag } satisfies WorkerSettings,
    });
    // A worker that dies between documents (e.g. killed for its CPU budget) is replaced by piscina;
    // without a listener the pool's 'error' event would end the process.
    this.piscina.on('error', () => {});
  }

  /** renderMarkdown, in a worker of this pool. Same options (and the lane and SVG drawer), same result. */
  render(markdown: string, { lane = 'requests', ...options }: MarkdownTaskOptions = {}): Promise<RenderedMarkdown> {
    if (lane === 'requests') return this.renderInWorker(markdown, options, lane);
    options.signal?.throwIfAborted();
    if (this.previewAdmission.pendingCount >= (this.options.previewQueueMax ?? 4)) {
      return Promise.reject(new CardError('busy', 'Every Markdown worker open to previews is busy and their queue is full; retry in a moment.', { retryAfterSeconds: 1 }));
    }
    // A preview whose deadline passes while it waits is answered at once; its turn then ends at once.
    const turn = this.previewAdmission(() => this.renderInWorker(markdown, options, lane));
    return options.signal ? abortable(turn, options.signal) : turn;
  }

  private async renderInWorker(markdown: string, options: Omit<MarkdownTaskOptions, 'lane'>, lane: RenderLane): Promise<RenderedMarkdown> {
    const { signal } = options;
    signal?.throwIfAborted();
    // Linear scans, here as well as in the worker: a document they refuse never waits for one.
    precheckMarkdown(markdown);
    const { port1, port2 } = new MessageChannel();
    const kill = new AbortController();
    const budget = new CpuBudget(this.options.cpuLimitMs, () => kill.abort());
    let stage = 'waiting for a worker';
    let started = false;
    // Images and diagrams the worker waits for: that time is not the document's CPU time.
    let waitingOnMainThread = 0;
    const waitOnMainThread = () => {
      if (waitingOnMainThread++ === 0) budget.pause();
    };
    const answer = (message: ImageAnswer | DiagramAnswer, transfer: ArrayBuffer[]) => {
      if (--waitingOnMainThread === 0) budget.resume();
      port1.postMessage(message, transfer);
    };
    /**
     * A failure of the request itself (what beforeImage refused with, a full queue while drawing
     * a diagram): the document's answer once the worker is done.
     */
    let requestFailure: { error: unknown } | undefined;

    port1.on('message', (message: WorkerMessage) => {
      if (message.type === 'start') {
        started = true;
        stage = 'starting';
        budget.start(message.threadId);
        return;
      }
      if (message.type === 'stage') {
        stage = message.stage;
        return;
      }
      waitOnMainThread();
      if (message.type === 'image') {
        if (signal?.aborted) {
          // The request is over; its document, still running, asks for the images it had queued: none is fetched or drawn.
          answer({ type: 'image', id: message.id, ok: false, message: 'not fetched: the request ended' }, []);
          return;
        }
        void (async () => {
          // Remote images and data: SVGs alike: the worker asks only for what must be fetched or drawn.
          if (options.beforeImage) {
            try {
              if (!requestFailure) await options.beforeImage();
            } catch (error) {
              requestFailure ??= { error };
            }
            if (requestFailure) {
              // Not fetched; the worker finishes the document (every image left answered like this one) and the caller gets the refusal.
              answer({ type: 'image', id: message.id, ok: false, message: 'not fetched: the request was refused' }, []);
              return;
            }
          }
          const [image, transfer] = await answerImage(options, message, lane);
          answer(image, transfer);
        })();
        return;
      }
      if (requestFailure) {
        // The request has its answer already: no browser work for it.
        answer({ type: 'diagram', id: message.id, drawn: { ok: false, message: 'not drawn: the request was refused' } }, []);
        return;
      }
      void drawDiagram(options.diagrams, message, signal).then(
        ([diagram, transfer]) => answer(diagram, transfer),
        (error: unknown) => {
          requestFailure ??= { error };
          // The worker still gets an answer, so it finishes and is free for the next document.
          answer({ type: 'diagram', id: message.id, drawn: { ok: false, message: 'not drawn' } }, []);
        },
      );
    });

    const task: MarkdownTask = {
      markdown,
      mdxMode: options.mdxMode ?? false,
      hashtags: options.hashtags !== false,
      fetchImages: options.remoteImages !== undefined,
      drawDiagrams: options.diagrams !== undefined,
      port: port2,
    };
    const done = this.piscina
      .run(task, { transferList: [port2], signal: kill.signal })
      .then(
        (result) => {
          if (requestFailure) throw requestFailure.error;
          if (result.ok) return { html: result.html, imageFailures: result.imageFailures };
          throw new CardError(result.kind, result.message);
        },
        (error: unknown) => {
          throw this.failure(error, budget.expired, stage);
        },
      )
      .finally(() => {
        budget.stop();
        port1.close();
      });

    if (!signal) return done;
    // The caller stops waiting at once. A document still queued is taken off the queue; one already
    // running finishes (within its budget) so its worker is not thrown away for nothing.
    signal.addEventListener(
      'abort',
      () => {
        if (!started) kill.abort();
      },
      { once: true },
    );
    return abortable(done, signal);
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

  /** Lets every worker, now and later, warm Shiki, KaTeX and MDX in the background. */
  warmLazyParts(): void {
    Atomics.store(this.warmUpFlag, 0, 1);
    Atomics.notify(this.warmUpFlag, 0);
  }

  /** Ends the workers; closing again waits for the same. */
  close(): Promise<void> {
    this.closed ??= this.piscina.destroy();
    return this.closed;
  }
}

async function answerImage(
  { remoteImages, svgImages, signal }: Pick<MarkdownTaskOptions, 'remoteImages' | 'svgImages' | 'signal'>,
  request: Extract<WorkerMessage, { type: 'image' }>,
  lane: RenderLane,
): Promise<[ImageAnswer, ArrayBuffer[]]> {
  try {
    const draw = (svg: Buffer) => {
      if (!svgImages) throw new Error('SVG images are not drawn here');
      return svgImages.rasterize(svg, signal, lane);
    };
    let image: FetchedImage;
    if (request.src.startsWith('data:')) {
      // The worker found an SVG in it (inline-remote-images.ts).
      image = await draw(decodeDataUrl(request.src)?.bytes ?? Buffer.alloc(0));
    } else {
      if (!remoteImages) throw new Error('remote images are not fetched here');
      const fetched = await remoteImages.fetch(request.src, signal);
      image = fetched.mimeType === 'image/svg+xml' ? await draw(fetched.bytes) : fetched;
    }
    // A copy: the source may keep its buffer (a cache), and the copy's memory moves to the worker.
    const bytes = new Uint8Array(image.bytes);
    return [{ type: 'image', id: request.id, ok: true, mimeType: image.mimeType, bytes, width: image.width, height: image.height, cssWidth: image.cssWidth }, [bytes.buffer]];
  } catch (error) {
    return [{ type: 'image', id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) }, []];
  }
}

async function drawDiagram(
  drawer: DiagramDrawer | undefined,
  request: Extract<WorkerMessage, { type: 'diagram' }>,
  signal: AbortSignal | undefined,
): Promise<[DiagramAnswer, ArrayBuffer[]]> {
  signal?.throwIfAborted();
  if (!drawer) return [{ type: 'diagram', id: request.id, drawn: { ok: false, message: 'Diagrams are not drawn here.' } }, []];
  const drawn = await drawer.draw(request.source);
  if (!drawn.ok) return [{ type: 'diagram', id: request.id, drawn }, []];
  // A copy: the drawer may keep its image (a cache), and the copy's memory moves to the worker.
  const png = new Uint8Array(drawn.png);
  return [{ type: 'diagram', id: request.id, drawn: { ...drawn, png } }, [png.buffer]];
}

const clockTicksPerMs = 100 / 1000;

/** The CPU time (user + system) a thread of this process has used, in ms; undefined without /proc. */
function threadCpuMs(threadId: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${threadId}/stat`, 'utf8');
    // Fields after the command name in parentheses: state is field 3, utime 14 and stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicksPerMs;
  } catch {
    return undefined;
  }
}

/**
 * One document's CPU budget: the worker thread's own CPU time where the kernel reports it, else the
 * worker's busy time (paused while it waits for images).
 */
class CpuBudget {
  private timer: NodeJS.Timeout | undefined;
  private poll: NodeJS.Timeout | undefined;
  private since = 0;
  private stopped = false;
  private wallClock = false;
  expired = false;

  constructor(
    private remainingMs: number,
    private readonly onExpire: () => void,
  ) {}

  start(threadId: number | undefined): void {
    const base = threadId === undefined ? undefined : threadCpuMs(threadId);
    if (base === undefined) {
      this.wallClock = true;
      this.resume();
      return;
    }
    this.poll = setInterval(() => {
      const used = threadCpuMs(threadId!);
      if (used !== undefined && used - base < this.remainingMs) return;
      this.expire();
    }, 50);
  }

  pause(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.remainingMs -= performance.now() - this.since;
  }

  resume(): void {
    if (!this.wallClock || this.timer || this.stopped) return;
    this.since = performance.now();
    this.timer = setTimeout(() => this.expire(), Math.max(0, this.remainingMs));
  }

  stop(): void {
    this.pause();
    clearInterval(this.poll);
    this.stopped = true;
  }

  private expire(): void {
    if (this.stopped) return;
    this.expired = true;
    this.stop();
    this.onExpire();
  }
}
