// The render pool: a fixed number of warm pages (RENDER_CONCURRENCY), a bounded queue of requests
// waiting for one (QUEUE_MAX), and every wait bounded by the request's deadline.
//
// A page that fails is closed and replaced, never reused dirty; a render hit by a browser crash is
// retried once on a fresh browser, and because each render runs on one page from start to finish,
// a request can only ever get its own images back.
import type { FastifyBaseLogger } from 'fastify';
import { AppError, isAbortError } from '../errors.js';
import { BrowserSupervisor } from './browser-supervisor.js';
import { RenderPage } from './render-page.js';

export interface RendererOptions {
  shellHtml: string;
  concurrency: number;
  queueMax: number;
  chromiumPath?: string;
  log: FastifyBaseLogger;
}

interface Waiter {
  resolve: (page: RenderPage) => void;
  reject: (error: unknown) => void;
}

export class Renderer {
  private readonly supervisor: BrowserSupervisor;
  private readonly idle: RenderPage[] = [];
  private readonly waiting: Waiter[] = [];
  /** Pages that exist (idle or busy); new ones are opened on demand up to `concurrency`. */
  private pageCount = 0;
  private closed = false;

  constructor(private readonly options: RendererOptions) {
    this.supervisor = new BrowserSupervisor(options.chromiumPath, options.log);
  }

  /** Launches the browser and opens every page, so the first request is as fast as any other. */
  async start(): Promise<void> {
    const pages = await Promise.all(Array.from({ length: this.options.concurrency }, () => this.openPage()));
    for (const page of pages) this.release(page);
  }

  /** Requests currently waiting for a page. */
  get queueLength(): number {
    return this.waiting.length;
  }

  /**
   * Runs `work` on a page of its own. Waits for a free page within the deadline of `signal`;
   * answers 503 at once when the queue is full. On a failure that is not the caller's deadline,
   * the page is replaced and the work is tried once more on a fresh one.
   */
  async run<T>(signal: AbortSignal, work: (page: RenderPage) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const page = await this.acquire(signal);
      try {
        const result = await abortable(work(page), signal);
        await page.clear();
        this.release(page);
        return result;
      } catch (error) {
        this.discard(page);
        if (isAbortError(error) || error instanceof AppError || attempt >= 2 || this.closed) throw error;
        this.options.log.warn({ err: error }, 'render failed; retrying once on a fresh page');
      }
    }
  }

  private acquire(signal: AbortSignal): Promise<RenderPage> {
    signal.throwIfAborted();
    const page = this.idle.pop();
    if (page) return Promise.resolve(page);
    if (this.pageCount < this.options.concurrency) return this.openPage();
    if (this.waiting.length >= this.options.queueMax) {
      return Promise.reject(new AppError('overloaded', 'All renderers are busy and the queue is full; retry shortly.', { retryAfter: 1 }));
    }
    return new Promise<RenderPage>((resolve, reject) => {
      const waiter: Waiter = {
        resolve: (granted) => {
          signal.removeEventListener('abort', onAbort);
          resolve(granted);
        },
        reject,
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private release(page: RenderPage): void {
    if (this.closed) {
      this.pageCount -= 1;
      void page.close();
      return;
    }
    const next = this.waiting.shift();
    if (next) next.resolve(page);
    else this.idle.push(page);
  }

  /** Closes a page that failed and, if anyone is waiting, opens its replacement for them. */
  private discard(page: RenderPage): void {
    this.pageCount -= 1;
    void page.close();
    if (this.waiting.length > 0 && !this.closed) {
      this.openPage().then(
        (fresh) => this.release(fresh),
        (error) => this.waiting.shift()?.reject(error),
      );
    }
  }

  private async openPage(): Promise<RenderPage> {
    this.pageCount += 1;
    try {
      return await RenderPage.open(await this.supervisor.get(), this.options.shellHtml);
    } catch (error) {
      this.pageCount -= 1;
      throw error;
    }
  }

  /** Stops handing out pages, fails waiting requests with 503 and closes the browser. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) {
      waiter.reject(new AppError('overloaded', 'The service is shutting down; retry on another instance.', { retryAfter: 1 }));
    }
    await Promise.all(this.idle.splice(0).map((page) => page.close()));
    await this.supervisor.close();
  }
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
