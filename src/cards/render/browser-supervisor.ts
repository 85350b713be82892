// Owns the Chromium processes: launches them, knows each one's process id, notices when one dies
// or stops answering, and makes sure that a browser that is closed or dead leaves no process behind.
//
// Playwright starts Chromium as the leader of its own process group, and every Chromium helper
// (zygotes, GPU, network service, renderers) stays in that group. Killing the group is therefore
// the one reliable way to leave nothing behind, even when the browser process itself was killed
// and its helpers were re-parented to init.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { chromium, type Browser, type CDPSession } from 'playwright-core';
import type { Logger } from '../logger.js';
import { findChromium } from './chromium-executable.js';

/**
 * Flags measured on this project's machine (docs/performance.md#chromium-flags): no background networking
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

/** How long a health probe or a polite close may take before the browser is killed. */
const probeTimeoutMs = 5_000;
const closeTimeoutMs = 5_000;

/** One running Chromium, with what is needed to probe it and to kill all of its processes. */
export class BrowserInstance {
  /** Renders completed on this browser, for the planned restart. */
  renders = 0;
  /** Set when the browser's connection is gone (crash, kill, or close). */
  dead = false;
  private probeSession?: Promise<CDPSession>;

  constructor(
    readonly browser: Browser,
    /** Process id of the browser, which is also its process group id; undefined off Linux. */
    readonly pid: number | undefined,
    readonly generation: number,
  ) {}

  /** Resolves when the browser answers a DevTools command within the probe timeout. */
  async probe(): Promise<void> {
    this.probeSession ??= this.browser.newBrowserCDPSession();
    await withTimeout(
      this.probeSession.then((session) => session.send('Browser.getVersion')),
      probeTimeoutMs,
      'the browser did not answer a health probe',
    );
  }

  /** SIGKILLs the browser's whole process group; a no-op when it is already gone. */
  kill(): void {
    if (this.pid === undefined) return;
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // ESRCH: nothing left in the group.
    }
  }

  /** Closes politely, then kills whatever is left, so no Chromium process outlives this call. */
  async close(): Promise<void> {
    await withTimeout(this.browser.close(), closeTimeoutMs, 'close timed out').catch(() => {});
    this.kill();
    await this.gone(closeTimeoutMs);
  }

  /** Waits until no process of the group exists any more (killed processes take a moment to exit). */
  private async gone(timeoutMs: number): Promise<void> {
    if (this.pid === undefined) return;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      try {
        process.kill(-this.pid, 0);
      } catch {
        return; // ESRCH: the group is empty
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

export interface SupervisorEvents {
  /** The browser went away without being asked to (crash, OOM kill, failed probe). */
  onCrash(instance: BrowserInstance): void;
}

export class BrowserSupervisor {
  private launchCount = 0;
  /** Every browser not yet closed, so shutdown can close them all. */
  private readonly live = new Set<BrowserInstance>();
  private readonly closing = new WeakSet<BrowserInstance>();
  private closed = false;

  constructor(
    private readonly chromiumPath: string | undefined,
    private readonly log: Logger,
    private readonly events: SupervisorEvents,
  ) {}

  /** Starts a new browser. Callers serialize launches; see Renderer. */
  async launch(): Promise<BrowserInstance> {
    if (this.closed) throw new Error('the renderer is shut down');
    const executable = await findChromium(this.chromiumPath);
    const started = performance.now();
    // A marker no other process carries, to find this browser's process id in /proc.
    const marker = `--cardwright-browser=${randomUUID()}`;
    const browser = await chromium.launch({
      executablePath: executable.path,
      args: [...chromiumArgs, marker],
      chromiumSandbox: false,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const instance = new BrowserInstance(browser, findProcessWithArgument(marker), ++this.launchCount);
    this.live.add(instance);
    browser.on('disconnected', () => {
      instance.dead = true;
      this.live.delete(instance);
      // Helpers of a crashed browser can linger; the group kill removes them.
      instance.kill();
      if (!this.closing.has(instance) && !this.closed) {
        this.log.warn({ browserPid: instance.pid, generation: instance.generation }, 'browser died; starting a new one');
        this.events.onCrash(instance);
      }
    });
    this.log.info(
      {
        chromium: executable.path,
        source: executable.source,
        version: browser.version(),
        browserPid: instance.pid,
        generation: instance.generation,
        ms: Math.round(performance.now() - started),
      },
      'browser launched',
    );
    if (this.closed) {
      await this.retire(instance);
      throw new Error('the renderer is shut down');
    }
    return instance;
  }

  /** Closes a browser on purpose (planned restart or shutdown). */
  async retire(instance: BrowserInstance): Promise<void> {
    this.closing.add(instance);
    this.live.delete(instance);
    await instance.close();
  }

  /** Treats a browser that failed its probe as dead: kill it, and the disconnect does the rest. */
  kill(instance: BrowserInstance): void {
    instance.kill();
  }

  /** Closes every browser still running. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.live].map((instance) => this.retire(instance)));
  }
}

/** The pid of our child process whose command line holds `argument`, read from /proc (Linux). */
function findProcessWithArgument(argument: string): number | undefined {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.split('\0').includes(argument)) return Number(entry);
    } catch {
      // The process exited while we looked.
    }
  }
  return undefined;
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
