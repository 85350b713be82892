// The service's first browser, launched before the rest of the service is imported
// (http/run-server.ts), while the main thread goes on importing it: Chromium's own start then overlaps
// that work instead of following it. The first render page can be opened on it just as early
// (openFirstPage), so that the page's load and warm-up overlap the imports too. The fleet of the
// requests' render pages takes the browser as its first browser and that page as its first page
// (browser-fleet.ts). The service's logger does not exist yet when it is launched, so what the
// launch logs is held and written to that logger when the fleet takes the browser.
import type { Logger } from '../logger.js';
import { BrowserInstance } from './browser-instance.js';
import type { PipeConnection } from './devtools/pipe-connection.js';
import type { WarmUp } from './page-pool.js';
import { RenderPage } from './render-page.js';
import type { RenderShell } from './shell-document.js';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** The warm-up the first page gets: the pool's first page at start (page-pool.ts). */
const firstPageWarmUp: WarmUp = 'common';

export class EarlyBrowser {
  private readonly held: Array<{ level: Level; args: unknown[] }> = [];
  private readonly launched: Promise<BrowserInstance>;
  private taken = false;
  private firstPage?: { shell: RenderShell; page: Promise<RenderPage> };

  constructor(chromiumPath: string | undefined) {
    const hold = (level: Level) => (...args: unknown[]) => {
      this.held.push({ level, args });
    };
    const heldLog = { level: 'trace', fatal: hold('fatal'), error: hold('error'), warn: hold('warn'), info: hold('info'), debug: hold('debug'), trace: hold('trace'), silent: () => {} };
    this.launched = BrowserInstance.launch(chromiumPath, 1, heldLog as unknown as Logger);
    // A failed launch is reported by the fleet that takes it, or not at all if none does.
    this.launched.catch(() => {});
  }

  /**
   * Opens the first render page on this browser as soon as it is up, with the first page's warm-up,
   * for a fleet of render pages on `shell` to take (takeFirstPage).
   */
  openFirstPage(shell: RenderShell): void {
    if (this.firstPage) return;
    const page = this.launched.then((instance) => RenderPage.open(instance.connection, shell, { warmUp: firstPageWarmUp, browserGroup: instance.pid }));
    // A page that failed to open is replaced by one the fleet opens itself.
    page.catch(() => {});
    this.firstPage = { shell, page };
  }

  /**
   * The browser (its launch may still be under way or may fail), the first time only: later
   * launches are the fleet's own. What the launch logged goes to `log` once it has settled.
   */
  take(log: Logger): Promise<BrowserInstance> | undefined {
    if (this.taken) return undefined;
    this.taken = true;
    const written = () => {
      for (const { level, args } of this.held.splice(0)) (log[level] as (...args: unknown[]) => void).apply(log, args);
    };
    return this.launched.finally(written);
  }

  /**
   * The page openFirstPage opened (its opening may still be under way or may fail), the first time
   * only, for a page asked of `browser` (this browser's connection) on the same shell with the same
   * warm-up; otherwise undefined, and the caller opens a page of its own.
   */
  async takeFirstPage(browser: PipeConnection, shell: RenderShell, warmUp: WarmUp): Promise<RenderPage | undefined> {
    const first = this.firstPage;
    if (!first || first.shell !== shell || warmUp !== firstPageWarmUp) return undefined;
    const instance = await this.launched.catch(() => undefined);
    if (this.firstPage !== first || instance?.connection !== browser) return undefined;
    this.firstPage = undefined;
    return first.page.catch(() => undefined);
  }

  /** Closes the browser unless a fleet took it (the service failed to start, or was stopped first). */
  async close(): Promise<void> {
    if (this.taken) return;
    this.taken = true;
    const instance = await this.launched.catch(() => undefined);
    await instance?.close();
  }
}
