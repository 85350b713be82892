// Owns the Chromium process: launches it at start-up (so no request pays for a launch), hands out
// the live browser, relaunches it after a crash, and closes it so no process outlives the service.
import { chromium, type Browser } from 'playwright-core';
import type { FastifyBaseLogger } from 'fastify';
import { findChromium } from './chromium-executable.js';

/**
 * Flags measured on this project's machine (research/render-bench.md): no background networking
 * or component updates (the page has no network anyway), no GPU, no sandbox when running as root
 * in a container. Frame-rate limiting is off because it adds ~15 ms of idle wait to every capture.
 */
const chromiumArgs = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--mute-audio',
  '--disable-frame-rate-limit',
  '--font-render-hinting=none',
];

export class BrowserSupervisor {
  private browser?: Browser;
  private launching?: Promise<Browser>;
  private closed = false;
  /** Counts launches, so callers can tell a page belongs to a browser that is gone. */
  generation = 0;

  constructor(
    private readonly chromiumPath: string | undefined,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** The running browser, launching one if there is none (one launch at a time). */
  async get(): Promise<Browser> {
    if (this.closed) throw new Error('the renderer is shut down');
    if (this.browser?.isConnected()) return this.browser;
    this.launching ??= this.launch().finally(() => {
      this.launching = undefined;
    });
    return this.launching;
  }

  private async launch(): Promise<Browser> {
    const executable = await findChromium(this.chromiumPath);
    const started = performance.now();
    const browser = await chromium.launch({
      executablePath: executable.path,
      args: chromiumArgs,
      chromiumSandbox: false,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    this.generation += 1;
    this.log.info(
      { chromium: executable.path, source: executable.source, version: browser.version(), ms: Math.round(performance.now() - started) },
      'browser launched',
    );
    browser.on('disconnected', () => {
      if (this.browser === browser) this.browser = undefined;
      if (!this.closed) this.log.warn('browser disconnected; the next render launches a new one');
    });
    if (this.closed) {
      await browser.close();
      throw new Error('the renderer is shut down');
    }
    this.browser = browser;
    return browser;
  }

  async close(): Promise<void> {
    this.closed = true;
    const browser = this.browser ?? (await this.launching?.catch(() => undefined));
    this.browser = undefined;
    await browser?.close().catch(() => {});
  }
}
