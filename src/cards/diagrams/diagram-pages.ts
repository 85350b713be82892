// The diagram pages (diagram-page.ts) of the serving browsers, handed out by page pools of their
// own (render/page-pool.ts: admission, queue, retries), separate from the render pages: a diagram
// never waits behind a card capture, and a card page never runs Mermaid. Like the render pages
// they come in two lanes (see render/renderer.ts): the previews' diagrams (no key needed) wait for
// their own pages (on the previews' browser), never for those of the requests. Pages are opened on first use, since most
// documents have no diagram. Each diagram has its own time limit; a diagram that
// takes longer has its page closed (which stops Mermaid) and is drawn as its source and the reason.
import { LRUCache } from 'lru-cache';
import { CardError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { BrowserFleet, FleetPage } from '../render/browser-fleet.js';
import { PagePool } from '../render/page-pool.js';
import type { RenderLane } from '../render/renderer.js';
import type { RenderShell } from '../render/shell-document.js';
import { diagramLimits } from './diagram-limits.js';
import { DiagramPage, diagramScripts, type DiagramStyle, type DrawnDiagram } from './diagram-page.js';
import { ScriptServer } from './script-server.js';

export interface DiagramPagesOptions {
  /** The browsers each lane's pages open on. */
  fleets: Record<RenderLane, BrowserFleet>;
  shell: RenderShell;
  /** Diagram pages open at most, and diagrams that may wait for one, in each lane. */
  lanes: Record<RenderLane, { concurrency: number; queueMax: number }>;
  log: Logger;
  /** How long one diagram may take once it has a page (default diagramLimits.renderTimeoutMs). */
  renderTimeoutMs?: number;
}

/** Drawn diagrams kept, so the editor's preview (which asks on every keystroke) draws each one once. */
const cacheOptions = { max: 200, maxSize: 32 * 1024 * 1024 };

export class DiagramPages {
  /** Mermaid's bundle and DOMPurify, fetched by the pages from a loopback port (script-server.ts). */
  private readonly scripts = new ScriptServer(diagramScripts);
  private readonly pools: Record<RenderLane, PagePool<FleetPage<DiagramPage>>>;
  private readonly drawn = new LRUCache<string, DrawnDiagram>({
    ...cacheOptions,
    sizeCalculation: (diagram) => (diagram.ok ? diagram.png.byteLength : diagram.message.length) + 100,
  });

  constructor(private readonly options: DiagramPagesOptions) {
    const { fleets, shell, log, lanes } = options;
    const refused = (url: string) => log.warn({ url: url.slice(0, 200) }, 'the diagram page asked for something that is not one of its own files; refused');
    const pool = (lane: RenderLane) => {
      const fleet = fleets[lane];
      const factory = {
        open: () => fleet.openWith((browser) => DiagramPage.open(browser, shell, this.scripts, refused)),
        usable: (page: FleetPage<DiagramPage>) => fleet.usable(page),
        rendered: (page: FleetPage<DiagramPage>) => fleet.rendered(page),
      };
      return new PagePool({ factory, ...lanes[lane], log });
    };
    this.pools = { requests: pool('requests'), previews: pool('previews') };
  }

  /**
   * Draws one diagram for a card of `style` on a page of `lane`, within the request's `signal`. A diagram Mermaid
   * cannot read, or that is too slow or too large, is an answer with the reason, not an exception;
   * only the request's own end (its deadline, a full queue, a shutdown) is thrown.
   */
  async draw(source: string, style: DiagramStyle, signal: AbortSignal, lane: RenderLane): Promise<DrawnDiagram> {
    const key = JSON.stringify([source, style.theme.className, style.mode ?? '', style.cardWidth, style.cardHeight ?? null, style.sliceable ?? false, style.deviceScale]);
    const known = this.drawn.get(key);
    if (known) return known;
    const limitMs = this.options.renderTimeoutMs ?? diagramLimits.renderTimeoutMs;
    const timeLimit = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    try {
      const startTimeLimit = () => {
        clearTimeout(timer);
        timer = setTimeout(() => timeLimit.abort(new DOMException('diagram time limit', 'TimeoutError')), limitMs);
      };
      const drawn = await this.pools[lane].run(AbortSignal.any([signal, timeLimit.signal]), async (page) => {
        // The time limit runs from when the diagram has a page, not while it waits for one, nor
        // while a new page draws its first diagram (which has a limit of its own, the same).
        startTimeLimit();
        await page.page.warmUp(style);
        startTimeLimit();
        return page.page.draw(source, style, performance.now() + limitMs);
      });
      this.drawn.set(key, drawn);
      return drawn;
    } catch (error) {
      if (signal.aborted) throw error;
      if (timeLimit.signal.aborted) {
        return {
          ok: false,
          message: `Mermaid took longer than ${limitMs / 1000} s to draw this diagram and was stopped. Simplify the diagram or split it into smaller ones.`,
          transient: true,
        };
      }
      if (error instanceof CardError && error.kind === 'render_failed') {
        this.options.log.warn({ err: error.cause }, 'a diagram page failed twice on one diagram');
        return { ok: false, message: 'The diagram page failed on this diagram twice.', transient: true };
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes idle pages of a lane's replaced browser and opens pages for its waiting diagrams. */
  refresh(lane: RenderLane): void {
    this.pools[lane].refresh();
  }

  async close(): Promise<void> {
    await Promise.all([this.pools.requests.close(), this.pools.previews.close()]);
    await this.scripts.close();
  }
}
