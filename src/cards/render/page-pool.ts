// Admission and the page pool: at most `concurrency` pages, a bounded queue of requests waiting
// for one (beyond it a 'busy' refusal at once), every wait and render bounded by the request's
// deadline. It knows nothing of browsers: pages come from a PageFactory (the browser fleet, see
// browser-fleet.ts, or fakes in test/page-pool.test.ts).
//
// Why a request can only ever get its own images: a render runs on one page from start to finish,
// a page serves one request at a time, and a page whose render failed or was cancelled is closed,
// never handed to anyone else.
import type { Logger } from '../logger.js';
import { abortable, timeLimit } from '../deadlines.js';
import { CardError, isAbortError } from '../errors.js';
import { requestLog } from '../request-log.js';

/** What the pool does with a page besides rendering on it. */
export interface PoolPage {
  /** Empties the page after a render, so nothing of the request outlives it; rejects if it cannot. */
  clear(): Promise<void>;
  close(): Promise<void>;
}

/**
 * What a page renders before it is handed out: nothing, for a page a request waits for (its own
 * card warms what it uses); the faces and steps of nearly every card (`common`), for the first
 * page at start, so the service is ready sooner, the rest following once it is quiet (see
 * finishWarmUp); or `all`, CJK and emoji faces too, for a spare page opened while it is quiet.
 */
export type WarmUp = 'none' | 'common' | 'all';

export interface PageFactory<P extends PoolPage> {
  /** Opens a page that is usable now, warmed as `warmUp` says. */
  open(warmUp: WarmUp): Promise<P>;
  /**
   * Whether `page` was opened with the `common` warm-up and has not had the rest yet; absent for
   * pages that have a single warm-up (or none).
   */
  partlyWarm?(page: P): boolean;
  /** The rest of the warm-up of a page for which partlyWarm is true. */
  finishWarmUp?(page: P): Promise<void>;
  /** False once the page's browser was replaced or died, or the page crashed: such a page is closed, never handed out. */
  usable(page: P): boolean;
  /** Told after each successful render on `page` (the fleet counts renders towards a planned restart). */
  rendered(page: P): void;
}

export type RenderOutcome = 'ok' | 'failed' | 'cancelled';

/** What the pool reports to the metrics; see src/http/metrics.ts. */
export interface PoolObserver {
  queueWait(seconds: number): void;
  render(seconds: number, outcome: RenderOutcome): void;
  pageDiscarded(): void;
  /** A render failed for a reason not its own (a browser or tab crash) and is tried once more on a fresh page. */
  renderRetried(): void;
}

export interface PagePoolOptions<P extends PoolPage> {
  factory: PageFactory<P>;
  concurrency: number;
  queueMax: number;
  /**
   * Longest a request may spend in the pool, waiting and rendering, on a timer of its own
   * (deadlines.ts) besides the caller's signal, so that no request holds a queue place or a page
   * for ever, whatever its caller does; 0 or absent: only the caller's signal bounds it.
   */
  requestTimeoutMs?: number;
  log: Logger;
  observer?: PoolObserver;
  /**
   * Whether requests are in progress elsewhere (in the other lane, or still becoming HTML before
   * they ask for a page): a spare page is warmed only when this pool and they are quiet.
   */
  busyElsewhere?: () => boolean;
}

interface Waiter<P> {
  resolve: (page: P) => void;
  reject: (error: unknown) => void;
}

/** How long the pool must have been without requests before it warms a spare page, and how often it looks. */
const spareWarmUpQuietMs = 200;
const spareWarmUpCheckMs = 50;

export const overloaded = () => new CardError('busy', 'All renderers are busy and the queue is full; retry shortly.', { retryAfterSeconds: 1 });
export const renderFailedTwice = (cause?: unknown) => new CardError('render_failed', 'The renderer failed on this request twice; retry it.', { cause });
const shuttingDown = () => new CardError('busy', 'The service is shutting down; retry on another instance.', { retryAfterSeconds: 1 });

export class PagePool<P extends PoolPage> {
  private readonly factory: PageFactory<P>;
  private readonly idle: P[] = [];
  private readonly waiting: Array<Waiter<P>> = [];
  /** Pages open or being opened; never above `concurrency`. */
  private slots = 0;
  /**
   * Pages being opened, for whatever reason (start, a spare, a waiting request): each is offered to
   * the first waiting request when it opens, so that many waiting requests are not queued but served.
   */
  private opening = 0;
  private busy = 0;
  private spareWarmUpTimer?: NodeJS.Timeout;
  private warmingSpare = false;
  /** Since when no request has been rendering or waiting (see warmSparePages). */
  private quietSince = 0;
  private draining = false;
  private closed = false;

  constructor(private readonly options: PagePoolOptions<P>) {
    this.factory = options.factory;
  }

  /**
   * Warms one page, so the first request is as fast as any other. The other pages, and the rest of
   * this one's warm-up, follow later (see warmSparePages): opening them all at once would make
   * readiness wait for the slowest, and opening them right away would slow the first requests.
   */
  async start(): Promise<void> {
    try {
      this.offer(await this.openPage('common'));
    } catch (error) {
      // Requests that came meanwhile waited for this page; they get pages of their own.
      this.pump();
      throw error;
    }
    this.warmWhenQuiet();
  }

  /**
   * Opens no page now: the pages (the first one too) are warmed one at a time once the service has
   * been quiet for a moment (see warmSparePages), or opened by the requests that need them first.
   */
  warmWhenQuiet(): void {
    this.quietSince = performance.now();
    this.spareWarmUpTimer = setInterval(() => this.warmSparePages(), spareWarmUpCheckMs);
    this.spareWarmUpTimer.unref();
  }

  /**
   * Finishes the warm-up start() left partial, then opens the pages start() left closed, one at a
   * time, once no request has been served for a moment: a warm-up never competes with a request
   * for the CPU. Until then, requests that run side by side open the pages they need themselves
   * (see pump).
   */
  private warmSparePages(): void {
    const now = performance.now();
    if (this.inUse || this.options.busyElsewhere?.()) this.quietSince = now;
    if (this.closed) {
      clearInterval(this.spareWarmUpTimer);
      return;
    }
    if (this.warmingSpare || now - this.quietSince < spareWarmUpQuietMs) return;
    const partlyWarm = this.idle.find((page) => this.factory.partlyWarm?.(page));
    if (partlyWarm) {
      this.finishWarmUp(partlyWarm);
      return;
    }
    if (this.slots >= this.options.concurrency) {
      clearInterval(this.spareWarmUpTimer);
      return;
    }
    this.warmingSpare = true;
    this.openPage('all').then(
      (page) => {
        this.warmingSpare = false;
        this.offer(page);
      },
      (error) => {
        this.warmingSpare = false;
        // Requests still open pages when they need them (those that came meanwhile, now); retrying
        // the warm-up would only repeat the error.
        clearInterval(this.spareWarmUpTimer);
        this.pump();
        if (!this.closed) this.options.log.warn({ err: error }, 'could not warm a spare render page');
      },
    );
  }

  /**
   * Takes an idle page out of service while it finishes its warm-up. It counts as a page being
   * opened meanwhile: a request that comes waits for it (a few hundred ms at most) rather than
   * having a cold page opened for it.
   */
  private finishWarmUp(page: P): void {
    this.idle.splice(this.idle.indexOf(page), 1);
    this.warmingSpare = true;
    this.opening += 1;
    Promise.resolve(this.factory.finishWarmUp?.(page)).then(
      () => {
        this.opening -= 1;
        this.warmingSpare = false;
        this.offer(page);
      },
      (error) => {
        this.opening -= 1;
        this.warmingSpare = false;
        this.discard(page);
        if (!this.closed) this.options.log.warn({ err: error }, 'could not finish warming a render page');
      },
    );
  }

  /** Requests waiting in the queue: those a page being opened will not serve. */
  get queueLength(): number {
    return Math.max(0, this.waiting.length - this.opening);
  }

  /** Whether a request renders on a page of this pool or waits for one. */
  get inUse(): boolean {
    return this.busy > 0 || this.waiting.length > 0;
  }

  /** Renders running now. */
  get activeRenders(): number {
    return this.busy;
  }

  /** True when a new request would be refused as busy because every page is busy and the queue is full. */
  get queueFull(): boolean {
    return this.idle.length === 0 && this.slots >= this.options.concurrency && this.queueLength >= this.options.queueMax;
  }

  get isDraining(): boolean {
    return this.draining || this.closed;
  }

  /** Pages open or opening. */
  get openPages(): number {
    return this.slots;
  }

  /**
   * Runs `work` on a page of its own. Waits for a free page within the deadline of `signal`;
   * refuses with 'busy' at once when the queue is full. When the deadline passes, the page is
   * closed, which stops the work on it. A failure that is not the request's own fault (a crash) is
   * retried once on a fresh page.
   */
  async run<T>(signal: AbortSignal, work: (page: P) => Promise<T>): Promise<T> {
    if (this.draining || this.closed) throw shuttingDown();
    const timeoutMs = this.options.requestTimeoutMs ?? 0;
    if (timeoutMs <= 0) return this.runWithRetry(signal, work);
    const deadline = timeLimit(timeoutMs, `the request did not leave the render pool within ${timeoutMs} ms`, signal);
    try {
      return await this.runWithRetry(deadline.signal, work);
    } finally {
      deadline.clear();
    }
  }

  /** Acquires a page and renders on it; retries once on a fresh page after a failure that is not a refusal. */
  private async runWithRetry<T>(signal: AbortSignal, work: (page: P) => Promise<T>): Promise<T> {
    const queuedAt = performance.now();
    for (let attempt = 1; ; attempt++) {
      let page: P | undefined;
      try {
        page = await this.acquire(signal, attempt > 1);
        if (attempt === 1) this.options.observer?.queueWait((performance.now() - queuedAt) / 1000);
        const result = await this.renderOn(page, signal, work);
        this.recycle(page, true);
        return result;
      } catch (error) {
        if (page) {
          // A controlled refusal (e.g. content too tall) leaves the page clean; anything else may
          // not, nor may a refusal that gave up on a page still busy drawing (see pageLeftBusy).
          if (error instanceof CardError && !error.pageLeftBusy) this.recycle(page, false);
          else this.discard(page);
        }
        if (isAbortError(error) || error instanceof CardError) throw error;
        if (attempt >= 2 || this.closed) {
          throw renderFailedTwice(error);
        }
        this.options.observer?.renderRetried();
        requestLog(this.options.log).warn({ err: error }, 'render failed; retrying once on a fresh page');
      }
    }
  }

  private async renderOn<T>(page: P, signal: AbortSignal, work: (page: P) => Promise<T>): Promise<T> {
    this.busy += 1;
    const started = performance.now();
    let outcome: RenderOutcome = 'failed';
    try {
      const result = await abortable(work(page), signal);
      outcome = 'ok';
      return result;
    } catch (error) {
      if (isAbortError(error)) outcome = 'cancelled';
      throw error;
    } finally {
      this.busy -= 1;
      this.quietSince = performance.now();
      this.options.observer?.render((performance.now() - started) / 1000, outcome);
    }
  }

  private acquire(signal: AbortSignal, isRetry: boolean): Promise<P> {
    signal.throwIfAborted();
    if (this.closed) return Promise.reject(shuttingDown());
    // A retry follows a crash, which may have hit the idle pages too (every tab of a browser whose
    // renderers were killed) before their crash is reported: it gets a page opened for it, and an
    // idle page makes room for that one.
    if (isRetry) {
      const idle = this.idle.pop();
      if (idle) this.closePage(idle);
    }
    const ready = isRetry ? undefined : this.takeIdle();
    if (ready) return Promise.resolve(ready);
    // A retry was admitted already; it is not refused for a queue that filled up meanwhile.
    if (!isRetry && this.slots >= this.options.concurrency && this.queueLength >= this.options.queueMax) {
      return Promise.reject(overloaded());
    }
    const granted = new Promise<P>((resolve, reject) => {
      const waiter: Waiter<P> = {
        resolve: (page) => {
          signal.removeEventListener('abort', onAbort);
          resolve(page);
        },
        reject: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
    this.pump();
    return granted;
  }

  /** An idle page that is still usable; idle pages that are not are closed. */
  private takeIdle(): P | undefined {
    for (let page = this.idle.pop(); page; page = this.idle.pop()) {
      if (this.factory.usable(page)) return page;
      this.closePage(page);
    }
    return undefined;
  }

  /**
   * Closes the idle pages that are no longer usable and opens pages for waiting requests; called
   * when the pages' browser was replaced or died.
   */
  refresh(): void {
    const stale = this.idle.filter((page) => !this.factory.usable(page));
    for (const page of stale) {
      this.idle.splice(this.idle.indexOf(page), 1);
      this.closePage(page);
    }
    this.pump();
  }

  /** Opens pages for waiting requests while there are free slots. */
  private pump(): void {
    while (!this.closed && this.waiting.length > this.opening && this.slots < this.options.concurrency) {
      this.openPage('none').then(
        (page) => this.offer(page),
        (error) => {
          // While closing, pages being opened fail because their browser is gone; that is expected.
          if (this.closed) return;
          this.options.log.error({ err: error }, 'could not open a render page');
          // The waiter's own retry (see run) tries again, on a new browser if this one is gone.
          if (this.waiting.length > this.opening) this.waiting.shift()?.reject(error);
        },
      );
    }
  }

  /** Gives a page to the first waiting request, or keeps it idle. */
  private offer(page: P): void {
    if (this.closed || !this.factory.usable(page)) {
      this.closePage(page);
      this.pump();
      return;
    }
    const next = this.waiting.shift();
    if (next) next.resolve(page);
    else this.idle.push(page);
  }

  /** After a render: clear the page and put it back (or close it if that fails). */
  private recycle(page: P, rendered: boolean): void {
    if (rendered) this.factory.rendered(page);
    page.clear().then(
      () => this.offer(page),
      () => this.discard(page),
    );
  }

  /** Closes a page that failed or was cancelled, and opens a replacement if anyone waits. */
  private discard(page: P): void {
    this.options.observer?.pageDiscarded();
    this.closePage(page);
    this.pump();
  }

  private closePage(page: P): Promise<void> {
    this.slots -= 1;
    // A page that cannot be closed politely goes with its browser; nothing is left to do here.
    return page.close().catch(() => {});
  }

  private async openPage(warmUp: WarmUp): Promise<P> {
    this.slots += 1;
    this.opening += 1;
    try {
      return await this.factory.open(warmUp);
    } catch (error) {
      this.slots -= 1;
      throw error;
    } finally {
      this.opening -= 1;
    }
  }

  /** Refuses new work as busy from now on; work already admitted continues. */
  beginDrain(): void {
    this.draining = true;
  }

  /** Stops handing out pages, fails waiting requests as busy and closes the idle pages. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.spareWarmUpTimer);
    for (const waiter of this.waiting.splice(0)) waiter.reject(shuttingDown());
    await Promise.all(this.idle.splice(0).map((page) => this.closePage(page)));
  }
}
