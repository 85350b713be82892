// The render pool: at most RENDER_CONCURRENCY warm pages, a bounded queue of requests waiting for
// one (QUEUE_MAX, beyond it 503 at once), every wait and render bounded by the request's deadline,
// and the browser behind the pages kept healthy.
//
// Why a request can only ever get its own images: a render runs on one page from start to finish,
// a page serves one request at a time, and a page whose render failed or was cancelled is closed,
// never handed to anyone else.
//
// Browser life cycle:
// - planned restart after BROWSER_RESTART_AFTER renders: the new browser is launched while the old
//   one keeps serving; then new work goes to the new browser and the old one is closed once its
//   last busy page is done, so no request waits for a launch or fails because of it;
// - crash (the browser disconnected, or failed a health probe and was killed): its pages are gone,
//   a new browser is launched at once, and renders that were hit are retried once on it.
import type { Logger } from '../logger.js';
import { CardError, isAbortError } from '../errors.js';
import { requestLog } from '../request-log.js';
import { type BrowserInstance, BrowserSupervisor } from './browser-supervisor.js';
import { RenderPage } from './render-page.js';

export type RestartReason = 'planned' | 'crash' | 'unresponsive';

/** What the pool reports to the metrics; see src/http/metrics.ts. */
export interface RenderObserver {
  queueWait(seconds: number): void;
  render(seconds: number, outcome: 'ok' | 'failed' | 'cancelled'): void;
  browserRestarted(reason: RestartReason): void;
  pageDiscarded(): void;
}

export interface RendererOptions {
  shellHtml: string;
  concurrency: number;
  queueMax: number;
  chromiumPath?: string;
  /** Renders after which the browser is replaced; 0 never. */
  restartAfter?: number;
  /** How often the browser is asked whether it still answers; 0 never. */
  probeIntervalMs?: number;
  log: Logger;
  observer?: RenderObserver;
}

interface PooledPage {
  page: RenderPage;
  browser: BrowserInstance;
}

interface Waiter {
  resolve: (page: PooledPage) => void;
  reject: (error: unknown) => void;
}

/** How long the renderer must have been without requests before it warms a spare page, and how often it looks. */
const spareWarmUpQuietMs = 200;
const spareWarmUpCheckMs = 50;

const overloaded = () => new CardError('busy', 'All renderers are busy and the queue is full; retry shortly.', { retryAfterSeconds: 1 });
const shuttingDown = () => new CardError('busy', 'The service is shutting down; retry on another instance.', { retryAfterSeconds: 1 });

export class Renderer {
  private readonly supervisor: BrowserSupervisor;
  private current?: BrowserInstance;
  private launching?: Promise<BrowserInstance>;
  private readonly idle: PooledPage[] = [];
  private readonly waiting: Waiter[] = [];
  /** Pages open or being opened, over all browsers; never above `concurrency`. */
  private slots = 0;
  /** Pages being opened for waiting requests. */
  private opening = 0;
  private busy = 0;
  /** Open pages per browser, so a retired browser is closed when its last page is. */
  private readonly pagesOn = new Map<BrowserInstance, number>();
  private readonly retiring = new Set<BrowserInstance>();
  private readonly restartReasons = new WeakMap<BrowserInstance, RestartReason>();
  private probeTimer?: NodeJS.Timeout;
  private spareWarmUpTimer?: NodeJS.Timeout;
  private warmingSpare = false;
  /** Since when no request has been rendering or waiting (see warmSparePages). */
  private quietSince = 0;
  private draining = false;
  private closed = false;

  constructor(private readonly options: RendererOptions) {
    this.supervisor = new BrowserSupervisor(options.chromiumPath, options.log, {
      onCrash: (instance) => this.onCrash(instance),
    });
  }

  /**
   * Launches the browser and warms one page, so the first request is as fast as any other. The
   * other pages are warmed later (see warmSparePages): opening them all at once would make
   * readiness wait for the slowest, and opening them right away would slow the first requests.
   */
  async start(): Promise<void> {
    await this.browser();
    this.offer(await this.openPage());
    this.quietSince = performance.now();
    this.spareWarmUpTimer = setInterval(() => this.warmSparePages(), spareWarmUpCheckMs);
    this.spareWarmUpTimer.unref();
    const interval = this.options.probeIntervalMs ?? 0;
    if (interval > 0) {
      this.probeTimer = setInterval(() => this.probe(), interval);
      this.probeTimer.unref();
    }
  }

  /**
   * Opens the pages start() left closed, one at a time, once no request has been served for a
   * moment: a warm-up never competes with a request for the CPU. Until then, requests that run
   * side by side open the pages they need themselves (see pump).
   */
  private warmSparePages(): void {
    const now = performance.now();
    if (this.closed || this.slots >= this.options.concurrency) {
      clearInterval(this.spareWarmUpTimer);
      return;
    }
    if (this.busy > 0 || this.waiting.length > 0) this.quietSince = now;
    if (this.warmingSpare || now - this.quietSince < spareWarmUpQuietMs) return;
    this.warmingSpare = true;
    this.openPage().then(
      (page) => {
        this.warmingSpare = false;
        this.offer(page);
      },
      (error) => {
        this.warmingSpare = false;
        // Requests still open pages when they need them; retrying here would only repeat the error.
        clearInterval(this.spareWarmUpTimer);
        if (!this.closed) this.options.log.warn({ err: error }, 'could not warm a spare render page');
      },
    );
  }

  /** Requests waiting for a page. */
  get queueLength(): number {
    return this.waiting.length;
  }

  /** Renders running now. */
  get activeRenders(): number {
    return this.busy;
  }

  /** True when a new request would be refused with 503 because every page is busy and the queue is full. */
  get queueFull(): boolean {
    return this.idle.length === 0 && this.slots >= this.options.concurrency && this.waiting.length >= this.options.queueMax;
  }

  get isDraining(): boolean {
    return this.draining || this.closed;
  }

  /** Whether a live browser is serving pages (false between a crash and the relaunch). */
  get browserUp(): boolean {
    return this.current !== undefined && !this.current.dead && this.current.browser.isConnected();
  }

  /** Process id of the serving browser (its process group id), for operators and tests. */
  get browserPid(): number | undefined {
    return this.current?.pid;
  }

  /** Pages open or opening. */
  get openPages(): number {
    return this.slots;
  }

  /**
   * Runs `work` on a page of its own. Waits for a free page within the deadline of `signal`;
   * answers 503 at once when the queue is full. When the deadline passes, the page is closed, which
   * stops the work in the browser. A failure that is not the request's own fault (a crash) is
   * retried once on a fresh page.
   */
  async run<T>(signal: AbortSignal, work: (page: RenderPage) => Promise<T>): Promise<T> {
    if (this.draining || this.closed) throw shuttingDown();
    const queuedAt = performance.now();
    for (let attempt = 1; ; attempt++) {
      let pooled: PooledPage | undefined;
      try {
        pooled = await this.acquire(signal, attempt > 1);
        if (attempt === 1) this.options.observer?.queueWait((performance.now() - queuedAt) / 1000);
        const result = await this.renderOn(pooled, signal, work);
        this.recycle(pooled, true);
        return result;
      } catch (error) {
        if (pooled) {
          // A controlled refusal (e.g. content too tall) leaves the page clean; anything else may not.
          if (error instanceof CardError) this.recycle(pooled, false);
          else this.discard(pooled);
        }
        if (isAbortError(error) || error instanceof CardError) throw error;
        if (attempt >= 2 || this.closed) {
          throw new CardError('render_failed', 'The renderer failed on this request twice; retry it.', { cause: error });
        }
        requestLog(this.options.log).warn({ err: error }, 'render failed; retrying once on a fresh page');
      }
    }
  }

  private async renderOn<T>(pooled: PooledPage, signal: AbortSignal, work: (page: RenderPage) => Promise<T>): Promise<T> {
    this.busy += 1;
    const started = performance.now();
    let outcome: 'ok' | 'failed' | 'cancelled' = 'failed';
    try {
      const result = await abortable(work(pooled.page), signal);
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

  private acquire(signal: AbortSignal, isRetry: boolean): Promise<PooledPage> {
    signal.throwIfAborted();
    if (this.closed) return Promise.reject(shuttingDown());
    const ready = this.takeIdle();
    if (ready) return Promise.resolve(ready);
    // A retry was admitted already; it is not refused for a queue that filled up meanwhile.
    if (!isRetry && this.slots >= this.options.concurrency && this.waiting.length >= this.options.queueMax) {
      return Promise.reject(overloaded());
    }
    const granted = new Promise<PooledPage>((resolve, reject) => {
      const waiter: Waiter = {
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

  /** An idle page of the serving browser; idle pages of a retired or dead browser are closed. */
  private takeIdle(): PooledPage | undefined {
    for (let page = this.idle.pop(); page; page = this.idle.pop()) {
      if (this.usable(page)) return page;
      this.closePage(page);
    }
    return undefined;
  }

  private usable(page: PooledPage): boolean {
    return page.browser === this.current && !page.browser.dead;
  }

  /** Opens pages for waiting requests while there are free slots. */
  private pump(): void {
    while (!this.closed && this.waiting.length > this.opening && this.slots < this.options.concurrency) {
      this.opening += 1;
      this.openPage().then(
        (page) => {
          this.opening -= 1;
          this.offer(page);
        },
        (error) => {
          this.opening -= 1;
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
  private offer(page: PooledPage): void {
    if (this.closed || !this.usable(page)) {
      this.closePage(page);
      this.pump();
      return;
    }
    const next = this.waiting.shift();
    if (next) next.resolve(page);
    else this.idle.push(page);
  }

  /** After a render: count it, clear the page, and put it back (or close it if that fails). */
  private recycle(page: PooledPage, rendered: boolean): void {
    if (rendered) {
      page.browser.renders += 1;
      const limit = this.options.restartAfter ?? 0;
      if (limit > 0 && page.browser === this.current && page.browser.renders >= limit && !this.launching) {
        this.restartReasons.set(page.browser, 'planned');
        this.options.log.info({ renders: page.browser.renders, generation: page.browser.generation }, 'replacing the browser after its planned number of renders');
        this.browser(true).catch((error) => this.options.log.error({ err: error }, 'planned browser restart failed; the current browser keeps serving'));
      }
    }
    page.page.clear().then(
      () => this.offer(page),
      () => this.discard(page),
    );
  }

  /** Closes a page that failed or was cancelled, and opens a replacement if anyone waits. */
  private discard(page: PooledPage): void {
    this.options.observer?.pageDiscarded();
    this.closePage(page);
    this.pump();
  }

  private closePage(page: PooledPage): void {
    this.slots -= 1;
    const left = (this.pagesOn.get(page.browser) ?? 1) - 1;
    this.pagesOn.set(page.browser, left);
    if (left === 0 && page.browser.dead) this.pagesOn.delete(page.browser);
    void page.page.close().finally(() => {
      if (left === 0) this.closeIfRetired(page.browser);
    });
  }

  private closeIfRetired(instance: BrowserInstance): void {
    if (!this.retiring.has(instance) || (this.pagesOn.get(instance) ?? 0) > 0) return;
    this.retiring.delete(instance);
    this.pagesOn.delete(instance);
    void this.supervisor.retire(instance).then(() => this.options.log.info({ generation: instance.generation }, 'old browser closed after its last render'));
  }

  private async openPage(): Promise<PooledPage> {
    this.slots += 1;
    try {
      const browser = await this.browser();
      const page = await RenderPage.open(browser.browser, this.options.shellHtml);
      this.pagesOn.set(browser, (this.pagesOn.get(browser) ?? 0) + 1);
      return { page, browser };
    } catch (error) {
      this.slots -= 1;
      throw error;
    }
  }

  /**
   * The serving browser; with `replace`, launches a new one (one launch at a time) that takes
   * over from the current one, which is then retired when its busy pages are done.
   */
  private browser(replace = false): Promise<BrowserInstance> {
    if (!replace && this.current && !this.current.dead) return Promise.resolve(this.current);
    this.launching ??= this.supervisor
      .launch()
      .then((fresh) => {
        const previous = this.current;
        this.current = fresh;
        if (previous) {
          if (!previous.dead) this.retire(previous);
          this.options.observer?.browserRestarted(this.restartReasons.get(previous) ?? 'crash');
        }
        return fresh;
      })
      .finally(() => {
        this.launching = undefined;
      });
    return this.launching;
  }

  private retire(instance: BrowserInstance): void {
    this.retiring.add(instance);
    // Idle pages of the old browser go now; busy ones when their render is done.
    const keep = this.idle.filter((page) => page.browser !== instance);
    const old = this.idle.filter((page) => page.browser === instance);
    this.idle.splice(0, this.idle.length, ...keep);
    for (const page of old) this.closePage(page);
    if ((this.pagesOn.get(instance) ?? 0) === 0) this.closeIfRetired(instance);
    this.pump();
  }

  private onCrash(instance: BrowserInstance): void {
    if (this.closed) return;
    if (this.restartReasons.get(instance) !== 'unresponsive') this.restartReasons.set(instance, 'crash');
    this.retiring.delete(instance);
    const stale = this.idle.filter((page) => page.browser === instance);
    for (const page of stale) {
      this.idle.splice(this.idle.indexOf(page), 1);
      this.closePage(page);
    }
    if (instance === this.current) {
      // Relaunch now, not at the next request, so /ready recovers and waiting requests proceed.
      this.browser(true).then(
        () => this.pump(),
        (error) => this.options.log.error({ err: error }, 'could not start a new browser after a crash'),
      );
    }
  }

  /** Kills a browser that no longer answers; the disconnect then replaces it like a crash. */
  private probe(): void {
    const instance = this.current;
    if (!instance || instance.dead || this.launching) return;
    instance.probe().catch((error) => {
      if (instance !== this.current || instance.dead) return;
      this.options.log.error({ err: error, browserPid: instance.pid }, 'browser failed its health probe; killing it');
      this.restartReasons.set(instance, 'unresponsive');
      this.supervisor.kill(instance);
    });
  }

  /** Refuses new work with 503 from now on; work already admitted continues. */
  beginDrain(): void {
    this.draining = true;
  }

  /** Stops handing out pages, fails waiting requests with 503 and closes every browser. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.probeTimer);
    clearInterval(this.spareWarmUpTimer);
    for (const waiter of this.waiting.splice(0)) waiter.reject(shuttingDown());
    await Promise.all(this.idle.splice(0).map((page) => page.page.close()));
    await this.launching?.catch(() => undefined);
    await this.supervisor.close();
  }
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
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
