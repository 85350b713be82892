// The browsers behind the render pages: which one serves, when it is replaced, and that every
// one that is replaced or dies leaves no process behind. It opens the pages the pool hands out
// (see page-pool.ts) and tells the pool when pages stopped being usable.
//
// Browser life cycle:
// - planned restart after `restartAfter` renders: the new browser is launched while the old one
//   keeps serving; then new pages open on the new browser and the old one is closed once its last
//   busy page is done, so no request waits for a launch or fails because of it;
// - crash (the browser disconnected, or failed a health probe or was found stopped, and was
//   killed): its pages are gone, a new browser is launched at once, and the pool retries the
//   renders that were hit once on it.
import type { Logger } from '../logger.js';
import { BrowserInstance } from './browser-instance.js';
import type { PipeConnection } from './devtools/pipe-connection.js';
import type { EarlyBrowser } from './early-browser.js';
import type { PageFactory, PoolPage, WarmUp } from './page-pool.js';
import { RenderPage } from './render-page.js';
import type { RenderShell } from './shell-document.js';

/**
 * Longest a page may take to open (a render page opens in 0.2–1.2 s here, more on a loaded
 * machine). A page that takes longer is given up on, so the request waiting for it gets another.
 */
const pageOpenTimeoutMs = 30_000;

export type RestartReason = 'planned' | 'crash' | 'unresponsive';

/** A page of the fleet (a render page, or a diagram page) and the browser it lives on. */
export interface FleetPage<T = RenderPage> extends PoolPage {
  readonly page: T;
  readonly browser: BrowserInstance;
}

/** What the fleet needs of a page it opens: emptied after each use, closed at the end. */
interface OwnPage {
  clear(): Promise<void>;
  close(): Promise<void>;
}

export interface BrowserFleetOptions {
  shell: RenderShell;
  chromiumPath?: string;
  /** Renders after which the browser is replaced; 0 never. */
  restartAfter?: number;
  /** How often the browser is asked whether it still answers; 0 never. */
  probeIntervalMs?: number;
  /** How long a probe may go unanswered before the browser is killed (default 5 s). */
  probeTimeoutMs?: number;
  log: Logger;
  /** A browser launched before the service was built (early-browser.ts): the first this fleet serves with. */
  firstBrowser?: EarlyBrowser;
  /** A browser was replaced (counted by the metrics). */
  onRestart?(reason: RestartReason): void;
  /**
   * The serving browser changed or a browser died: idle pages of other browsers are no longer
   * usable, and requests waiting for a page can have one again (see PagePool.refresh).
   */
  onPagesChanged(): void;
}

export class BrowserFleet implements PageFactory<FleetPage> {
  private current?: BrowserInstance;
  private launching?: Promise<BrowserInstance>;
  private launchCount = 0;
  /** Every browser not yet closed, so close() can close them all. */
  private readonly live = new Set<BrowserInstance>();
  /** Browsers closed on purpose: their disconnect is not a crash. */
  private readonly closing = new WeakSet<BrowserInstance>();
  /** Open pages per browser, so a retired browser is closed when its last page is. */
  private readonly pagesOn = new Map<BrowserInstance, number>();
  /** Replaced browsers that still have busy pages. */
  private readonly retiring = new Set<BrowserInstance>();
  private readonly restartReasons = new WeakMap<BrowserInstance, RestartReason>();
  private probeTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: BrowserFleetOptions) {}

  /** Starts the health probes; the first browser is launched by the first page opened. */
  start(): void {
    const interval = this.options.probeIntervalMs ?? 0;
    if (interval > 0) {
      this.probeTimer = setInterval(() => this.probe(), interval);
      this.probeTimer.unref();
    }
  }

  /**
   * Whether a browser can render: one is serving, alive and not stopped (false between a crash and
   * the relaunch, and while the serving browser is stopped until its probe kills it).
   */
  get browserUp(): boolean {
    return this.current !== undefined && !this.current.dead && this.current.connected && !this.current.stopped;
  }

  /** Process id of the serving browser (its process group id), for operators and tests. */
  get browserPid(): number | undefined {
    return this.current?.pid;
  }

  open(warmUp: WarmUp): Promise<FleetPage> {
    return this.openWith((browser, browserGroup) => RenderPage.open(browser, this.options.shell, { warmUp, browserGroup }));
  }

  partlyWarm(page: FleetPage): boolean {
    return page.page.needsScriptsWarmUp;
  }

  finishWarmUp(page: FleetPage): Promise<void> {
    return page.page.warmUpScripts();
  }

  /**
   * Opens a page of another kind on the serving browser (the diagram pages of
   * diagrams/diagram-pages.ts); it counts towards the browser's pages like a render page, so a
   * replaced browser is closed only once its last page of any kind is done.
   */
  async openWith<T extends OwnPage>(opener: (browser: PipeConnection, browserGroup: number | undefined) => Promise<T>): Promise<FleetPage<T>> {
    const browser = await this.serving();
    // Fails at once when the browser dies meanwhile (killed by its probe, say), or stops answering:
    // the request waiting for this page must not wait for ever with it.
    const page = await browser.whileConnected(opener(browser.connection, browser.pid), pageOpenTimeoutMs, 'a render page took too long to open', (late) => {
      late.close().catch(() => {});
    });
    this.pagesOn.set(browser, (this.pagesOn.get(browser) ?? 0) + 1);
    return {
      page,
      browser,
      clear: () => page.clear(),
      close: () => this.closePage(page, browser),
    };
  }

  usable<T>(page: FleetPage<T>): boolean {
    // A render page whose tab crashed is never handed out again (RenderPage.crashed).
    const crashed = page.page instanceof RenderPage && page.page.crashed;
    return page.browser === this.current && !page.browser.dead && !crashed && !this.killIfStopped(page.browser);
  }

  /** Counts the render, and starts the planned replacement once the serving browser has done its share. */
  rendered<T>({ browser }: FleetPage<T>): void {
    browser.renders += 1;
    const limit = this.options.restartAfter ?? 0;
    if (limit > 0 && browser === this.current && browser.renders >= limit && !this.launching) {
      this.restartReasons.set(browser, 'planned');
      this.options.log.info({ renders: browser.renders, generation: browser.generation }, 'replacing the browser after its planned number of renders');
      this.serving(true).catch((error) => this.options.log.error({ err: error }, 'planned browser restart failed; the current browser keeps serving'));
    }
  }

  private async closePage(page: OwnPage, browser: BrowserInstance): Promise<void> {
    const left = (this.pagesOn.get(browser) ?? 1) - 1;
    this.pagesOn.set(browser, left);
    if (left === 0 && browser.dead) this.pagesOn.delete(browser);
    await page.close();
    if (left === 0) this.closeIfRetired(browser);
  }

  private closeIfRetired(instance: BrowserInstance): void {
    if (!this.retiring.has(instance) || (this.pagesOn.get(instance) ?? 0) > 0) return;
    this.retiring.delete(instance);
    this.pagesOn.delete(instance);
    void this.closeBrowser(instance).then(() => this.options.log.info({ generation: instance.generation }, 'old browser closed after its last render'));
  }

  /**
   * The serving browser; with `replace`, launches a new one (one launch at a time) that takes
   * over from the current one, which is then retired when its busy pages are done.
   */
  private serving(replace = false): Promise<BrowserInstance> {
    if (!replace && this.current && !this.current.dead && !this.killIfStopped(this.current)) return Promise.resolve(this.current);
    this.launching ??= this.launch()
      .then((fresh) => {
        const previous = this.current;
        this.current = fresh;
        if (previous) {
          if (!previous.dead) this.retire(previous);
          this.options.onRestart?.(this.restartReasons.get(previous) ?? 'crash');
        }
        return fresh;
      })
      .finally(() => {
        this.launching = undefined;
      });
    return this.launching;
  }

  private async launch(): Promise<BrowserInstance> {
    if (this.closed) throw new Error('the renderer is shut down');
    const generation = ++this.launchCount;
    const instance = await (this.options.firstBrowser?.take(this.options.log) ?? BrowserInstance.launch(this.options.chromiumPath, generation, this.options.log));
    this.live.add(instance);
    instance.connection.onClose(() => {
      this.live.delete(instance);
      if (!this.closing.has(instance) && !this.closed) {
        this.options.log.warn({ browserPid: instance.pid, generation: instance.generation }, 'browser died; starting a new one');
        this.onCrash(instance);
      }
    });
    if (this.closed) {
      await this.closeBrowser(instance);
      throw new Error('the renderer is shut down');
    }
    return instance;
  }

  /** Idle pages of the old browser go now (see PagePool.refresh); busy ones when their render is done. */
  private retire(instance: BrowserInstance): void {
    this.retiring.add(instance);
    this.options.onPagesChanged();
    if ((this.pagesOn.get(instance) ?? 0) === 0) this.closeIfRetired(instance);
  }

  private onCrash(instance: BrowserInstance): void {
    if (this.restartReasons.get(instance) !== 'unresponsive') this.restartReasons.set(instance, 'crash');
    this.retiring.delete(instance);
    if (instance === this.current) {
      // Relaunch now, not at the next request, so /ready recovers and waiting requests proceed.
      this.serving(true).then(
        () => this.options.onPagesChanged(),
        (error) => this.options.log.error({ err: error }, 'could not start a new browser after a crash'),
      );
    }
    this.options.onPagesChanged();
  }

  /**
   * Kills the serving browser when its process is stopped (SIGSTOP, a debugger): it answers nothing
   * until continued, so a request given one of its pages would wait for the next health probe, up
   * to BROWSER_PROBE_INTERVAL_MS. Checked (one read in /proc) whenever a page of it is handed out or
   * opened; it is then replaced like a browser that failed its probe. Returns whether it killed it.
   */
  private killIfStopped(instance: BrowserInstance): boolean {
    if (instance !== this.current || instance.dead || !instance.stopped) return false;
    this.options.log.error({ browserPid: instance.pid }, 'the browser process is stopped; killing it');
    this.restartReasons.set(instance, 'unresponsive');
    instance.kill();
    return true;
  }

  /** Kills a browser that no longer answers; the disconnect then replaces it like a crash. */
  private probe(): void {
    const instance = this.current;
    if (!instance || instance.dead || this.launching) return;
    instance.probe(this.options.probeTimeoutMs ?? 5_000).catch((error) => {
      if (instance !== this.current || instance.dead) return;
      this.options.log.error({ err: error, browserPid: instance.pid }, 'browser failed its health probe; killing it');
      this.restartReasons.set(instance, 'unresponsive');
      instance.kill();
    });
  }

  /** Closes a browser on purpose (planned restart or shutdown). */
  private async closeBrowser(instance: BrowserInstance): Promise<void> {
    this.closing.add(instance);
    this.live.delete(instance);
    await instance.close();
  }

  /** Stops replacing browsers and closes every one still running. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.probeTimer);
    await this.options.firstBrowser?.close();
    await this.launching?.catch(() => undefined);
    await Promise.all([...this.live].map((instance) => this.closeBrowser(instance)));
  }
}
