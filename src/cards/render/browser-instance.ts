// One Chromium process: launches it, knows its process id, probes whether it still answers, and
// makes sure that when it is closed or dies it leaves no process behind. Which browser serves and
// when one is replaced is decided by the fleet (browser-fleet.ts).
//
// Chromium is started as the leader of its own process group (devtools/chromium-process.ts), and
// every Chromium helper (zygotes, GPU, network service, renderers) stays in that group. Killing the
// group is therefore the one reliable way to leave nothing behind, even when the browser process
// itself was killed and its helpers were re-parented to init.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import { findChromium } from './chromium-executable.js';
import { launchAtServicePriority } from './chromium-priority.js';
import { launchChromium, type ChromiumProcess } from './devtools/chromium-process.js';
import type { PipeConnection } from './devtools/pipe-connection.js';
import { isStopped, processGroup, processStat } from './process-table.js';

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

/** How long a polite close may take before the browser is killed. */
const closeTimeoutMs = 5_000;

/**
 * Waits before the second and third try of a launch. Chromium now and then dies while it starts
 * (a crash of its own before the DevTools pipe is up, seen on a loaded machine); a service must
 * not fail to start, or stay without a browser after a crash, for that. A launch that fails three
 * times is reported.
 */
const launchRetryDelaysMs = [250, 1_000];

/** One running Chromium, with what is needed to probe it and to kill all of its processes. */
export class BrowserInstance {
  /** Renders completed on this browser, for the planned restart. */
  renders = 0;
  /** Set when the browser's connection is gone (crash, kill, or close). */
  dead = false;
  /** Rejects once the browser's connection is gone (see whileConnected). */
  private readonly lost: Promise<never>;

  private constructor(
    private readonly chromium: ChromiumProcess,
    readonly generation: number,
  ) {
    this.lost = new Promise<never>((_, reject) => {
      chromium.connection.onClose(() => reject(new Error('the browser is gone')));
    });
    this.lost.catch(() => {});
  }

  /** The DevTools pipe to the browser, on which its pages are opened (devtools/browser-page.ts). */
  get connection(): PipeConnection {
    return this.chromium.connection;
  }

  /** Process id of the browser, which is also its process group id. */
  get pid(): number | undefined {
    return this.chromium.pid;
  }

  /** False once the browser's DevTools pipe has closed (it exited, crashed or was killed). */
  get connected(): boolean {
    return !this.chromium.connection.closed;
  }

  /**
   * Starts a new browser. Once its connection is gone (crash, kill or close) it is marked dead and
   * its process group is killed, since helpers of a crashed browser can linger.
   */
  static async launch(chromiumPath: string | undefined, generation: number, log: Logger): Promise<BrowserInstance> {
    const executable = await findChromium(chromiumPath);
    const launch = launchAtServicePriority(executable.path);
    const started = performance.now();
    // A marker no other process carries names this browser in the process table (ps, /proc), for
    // operators and for the tests that look for what the service started.
    const marker = `--cardwright-browser=${randomUUID()}`;
    const chromium = await launchWithRetries(() => launchChromium({ executablePath: launch.path, env: launch.env, args: [...chromiumArgs, marker] }), log);
    const instance = new BrowserInstance(chromium, generation);
    chromium.connection.onClose(() => {
      instance.dead = true;
      instance.kill();
    });
    log.info(
      {
        chromium: executable.path,
        source: executable.source,
        version: chromium.version,
        browserPid: instance.pid,
        generation,
        ms: Math.round(performance.now() - started),
      },
      'browser launched',
    );
    return instance;
  }

  /**
   * True while the browser process is stopped (SIGSTOP, or a debugger holds it): it answers
   * nothing, so no page of it can render. Read from /proc; false where there is none.
   */
  get stopped(): boolean {
    const stat = this.pid === undefined ? undefined : processStat(this.pid);
    return stat !== undefined && isStopped(stat);
  }

  /**
   * Resolves when the browser answers a DevTools command within `timeoutMs`; a browser that is
   * stopped fails at once, since it cannot answer until someone continues it.
   */
  async probe(timeoutMs: number): Promise<void> {
    if (this.stopped) throw new Error('the browser process is stopped');
    await withTimeout(
      this.chromium.connection.root.send('Browser.getVersion'),
      timeoutMs,
      'the browser did not answer a health probe',
    );
  }

  /**
   * Settles with `step`, or fails as soon as the browser is gone or `timeoutMs` has passed. Why:
   * a step on a browser that is stopped or was killed may never settle, and a step that never
   * settles holds what waits on it for ever.
   * What `step` yields after it was given up on is handed to `late`, to be closed.
   */
  whileConnected<T>(step: Promise<T>, timeoutMs: number, message: string, late: (value: T) => void): Promise<T> {
    let givenUp = false;
    step.then(
      (value) => {
        if (givenUp) late(value);
      },
      () => {},
    );
    return withTimeout(Promise.race([step, this.lost]), timeoutMs, message).catch((error) => {
      givenUp = true;
      throw error;
    });
  }

  /**
   * SIGKILLs the browser's whole process group; a no-op when it is already gone. The browser is
   * dead from here on, before its disconnect is reported: none of its pages is handed out meanwhile.
   */
  kill(): void {
    if (this.pid === undefined) return;
    this.dead = true;
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // ESRCH: nothing left in the group.
    }
  }

  /** Closes politely, then kills whatever is left, so no Chromium process outlives this call. */
  async close(): Promise<void> {
    await withTimeout(
      this.chromium.connection.root.send('Browser.close').then(() => this.chromium.exited),
      closeTimeoutMs,
      'close timed out',
    ).catch(() => {});
    this.kill();
    await this.gone();
  }

  /**
   * Waits until no process of the group is running any more (killed processes take a moment to
   * exit). Zombies count as gone: they hold no memory and no CPU, only a process-table entry until
   * their new parent reaps them, which init did up to a second later on this machine.
   */
  private async gone(): Promise<void> {
    if (this.pid === undefined) return;
    const deadline = Date.now() + closeTimeoutMs;
    while (Date.now() < deadline && processGroup(this.pid).length > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function launchWithRetries(launch: () => Promise<ChromiumProcess>, log: Logger): Promise<ChromiumProcess> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await launch();
    } catch (error) {
      const delay = launchRetryDelaysMs[attempt];
      if (delay === undefined) throw error;
      log.warn({ err: error, attempt: attempt + 1 }, 'Chromium failed to start; trying again');
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
