// The renderer the service, the CLI and the MCP server use: the page pool (admission, queue,
// deadlines, retries; page-pool.ts) running on pages of the browser fleet (launch, planned
// restarts, crash and hang recovery; browser-fleet.ts).
//
// Previews have a lane of their own: a second, small pool of pages with its own queue, on a browser
// of its own. The preview needs no key, so whatever previews ask for, they wait for (or are refused
// by) their own pages, never for the pages of POST /api/generate, which keeps every one of its own.
// Their own browser, because a card the browser struggles to draw (a huge capture of stacked
// gradients) can leave the whole browser process unanswering for seconds: its health probe then
// kills it, and with it every render on it. A preview can so take down only the previews' browser.
// Mermaid diagrams are drawn in pages of their own too, in the same two lanes, each on its lane's
// browser (diagrams/diagram-pages.ts).
import { DiagramPages } from '../diagrams/diagram-pages.js';
import type { DiagramStyle, DrawnDiagram } from '../diagrams/diagram-page.js';
import type { Logger } from '../logger.js';
import { BrowserFleet, type FleetPage, type RestartReason } from './browser-fleet.js';
import type { EarlyBrowser } from './early-browser.js';
import { PagePool, type PoolObserver } from './page-pool.js';
import type { RenderPage } from './render-page.js';
import type { RenderShell } from './shell-document.js';

export type { RestartReason } from './browser-fleet.js';

/** What the renderer reports to the metrics; see src/http/metrics.ts. */
export interface RenderObserver extends PoolObserver {
  browserRestarted(reason: RestartReason): void;
}

/** Which pages a render runs on: the requests' own, or the small set kept for previews. */
export type RenderLane = 'requests' | 'previews';

export interface RendererOptions {
  shell: RenderShell;
  concurrency: number;
  queueMax: number;
  /** Pages of the preview lane, besides `concurrency`, and previews that may wait for one. */
  previewConcurrency?: number;
  previewQueueMax?: number;
  /** Longest a request may wait and render, whatever its signal does; see PagePool. */
  requestTimeoutMs?: number;
  chromiumPath?: string;
  /** A browser launched beforehand (early-browser.ts), for the requests' render pages. */
  firstBrowser?: EarlyBrowser;
  /** Renders after which the browser is replaced; 0 never. */
  restartAfter?: number;
  /** How often the browser is asked whether it still answers; 0 never. */
  probeIntervalMs?: number;
  /** How long a probe may go unanswered before the browser is killed (default 5 s). */
  probeTimeoutMs?: number;
  log: Logger;
  observer?: RenderObserver;
  /** Whether requests are in progress before they reach a page (e.g. in the Markdown workers); spare pages wait for them. */
  requestsInProgress?: () => boolean;
  /** How long one diagram may take to draw (default diagramLimits.renderTimeoutMs); for tests. */
  diagramTimeoutMs?: number;
}

export class Renderer {
  private readonly fleet: BrowserFleet;
  private readonly previewFleet: BrowserFleet;
  private readonly pool: PagePool<FleetPage>;
  private readonly previewPool: PagePool<FleetPage>;
  private readonly diagrams: DiagramPages;
  private previewsExpected = false;

  constructor(options: RendererOptions) {
    const { observer } = options;
    const fleet = (onPagesChanged: () => void, firstBrowser?: EarlyBrowser) =>
      new BrowserFleet({
        shell: options.shell,
        chromiumPath: options.chromiumPath,
        firstBrowser,
        restartAfter: options.restartAfter,
        probeIntervalMs: options.probeIntervalMs,
        probeTimeoutMs: options.probeTimeoutMs,
        log: options.log,
        onRestart: (reason) => observer?.browserRestarted(reason),
        onPagesChanged,
      });
    this.fleet = fleet(() => {
      this.pool.refresh();
      this.diagrams.refresh('requests');
    }, options.firstBrowser);
    this.previewFleet = fleet(() => {
      this.previewPool.refresh();
      this.diagrams.refresh('previews');
    });
    // A lane warms a spare page only when neither lane renders and no request is on its way to one,
    // so a warm-up never takes Chromium's CPU from a request (the first ones after start above all).
    this.pool = new PagePool<FleetPage>({
      factory: this.fleet,
      concurrency: options.concurrency,
      queueMax: options.queueMax,
      requestTimeoutMs: options.requestTimeoutMs,
      log: options.log,
      observer,
      busyElsewhere: () => this.previewPool.inUse || (options.requestsInProgress?.() ?? false),
    });
    const previewLane = { concurrency: options.previewConcurrency ?? 1, queueMax: options.previewQueueMax ?? 4 };
    this.previewPool = new PagePool<FleetPage>({
      factory: this.previewFleet,
      ...previewLane,
      requestTimeoutMs: options.requestTimeoutMs,
      log: options.log,
      observer,
      busyElsewhere: () => this.pool.inUse || (options.requestsInProgress?.() ?? false),
    });
    // Mermaid diagrams are drawn in pages of their own on the same browsers (diagrams/diagram-page.ts),
    // in lanes as large as the render pages' (at most two pages for the requests).
    this.diagrams = new DiagramPages({
      fleets: { requests: this.fleet, previews: this.previewFleet },
      shell: options.shell,
      lanes: {
        requests: { concurrency: Math.min(2, options.concurrency), queueMax: options.queueMax },
        previews: previewLane,
      },
      log: options.log,
      renderTimeoutMs: options.diagramTimeoutMs,
    });
  }

  /** Launches the browser and warms one page, so the first request is as fast as any other. */
  async start(): Promise<void> {
    await this.pool.start();
    this.fleet.start();
    // The preview lane has a browser of its own (so a preview that leaves its browser unanswering
    // cannot get the requests' browser killed). It is launched only once previews are expected
    // (expectPreviews) or the first preview comes: a service used only through the API, the CLI or
    // the MCP server never pays the 150–200 MB it takes.
    this.previewFleet.start();
  }

  /**
   * Someone opened the web page, so previews are coming: the previews' browser launches and warms
   * its page once the service is quiet (never before a request waiting for the CPU), in the second
   * or so the visitor takes to start typing. Only the first call does anything.
   */
  expectPreviews(): void {
    if (this.previewsExpected) return;
    this.previewsExpected = true;
    this.previewPool.warmWhenQuiet();
  }

  /**
   * Runs `work` on a page of its own, within the deadline of `signal`; see PagePool.run. Refuses
   * with 'busy' when the queue is full or the service is shutting down.
   */
  run<T>(signal: AbortSignal, work: (page: RenderPage) => Promise<T>, lane: RenderLane = 'requests'): Promise<T> {
    return (lane === 'previews' ? this.previewPool : this.pool).run(signal, (pooled) => work(pooled.page));
  }

  /**
   * Draws one Mermaid diagram as an image for a card of `style`, in a page of its own in `lane`; a
   * diagram that cannot be drawn is answered with the reason (see DiagramPages.draw).
   */
  drawDiagram(source: string, style: DiagramStyle, signal: AbortSignal, lane: RenderLane = 'requests'): Promise<DrawnDiagram> {
    return this.diagrams.draw(source, style, signal, lane);
  }

  /** Requests waiting for a page, in both lanes. */
  get queueLength(): number {
    return this.pool.queueLength + this.previewPool.queueLength;
  }

  /** Renders running now, in both lanes. */
  get activeRenders(): number {
    return this.pool.activeRenders + this.previewPool.activeRenders;
  }

  /** True when a new request (not a preview) would be refused with 'busy' because every page is busy and the queue is full. */
  get queueFull(): boolean {
    return this.pool.queueFull;
  }

  get isDraining(): boolean {
    return this.pool.isDraining;
  }

  /** Pages of the requests' lane open or opening (the preview lane's are not counted). */
  get openPages(): number {
    return this.pool.openPages;
  }

  /** Whether a browser can render requests (false between a crash and the relaunch, and while the browser is stopped). */
  get browserUp(): boolean {
    return this.fleet.browserUp;
  }

  /** Process id of the browser serving the requests (its process group id), for operators and tests. */
  get browserPid(): number | undefined {
    return this.fleet.browserPid;
  }

  /** Process id of the previews' browser, for tests. */
  get previewBrowserPid(): number | undefined {
    return this.previewFleet.browserPid;
  }

  /** Refuses new work with 'busy' from now on; work already admitted continues. */
  beginDrain(): void {
    this.pool.beginDrain();
    this.previewPool.beginDrain();
  }

  /** Stops handing out pages, fails waiting requests with 'busy' and closes every browser. */
  async close(): Promise<void> {
    // Both start at once: the fleet stops replacing browsers before anything else can happen, and
    // the pool's idle pages are asked to close before their browser is.
    await Promise.all([this.pool.close(), this.previewPool.close(), this.diagrams.close(), this.fleet.close(), this.previewFleet.close()]);
  }
}
