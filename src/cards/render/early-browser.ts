// The service's first browser, launched before the rest of the service is imported
// (http/run-server.ts), while the main thread goes on importing it: Chromium's own start then overlaps
// that work instead of following it. The fleet of the requests' render pages takes it as its first
// browser (browser-fleet.ts). The service's logger does not exist yet when it is launched, so what
// the launch logs is held and written to that logger when the fleet takes the browser.
import type { Logger } from '../logger.js';
import { BrowserInstance } from './browser-instance.js';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

export class EarlyBrowser {
  private readonly held: Array<{ level: Level; args: unknown[] }> = [];
  private readonly launched: Promise<BrowserInstance>;
  private taken = false;

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

  /** Closes the browser unless a fleet took it (the service failed to start, or was stopped first). */
  async close(): Promise<void> {
    if (this.taken) return;
    this.taken = true;
    const instance = await this.launched.catch(() => undefined);
    await instance?.close();
  }
}
