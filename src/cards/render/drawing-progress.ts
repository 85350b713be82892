// Tells a renderer that is busy drawing from one that is frozen, once a drawing step has run over
// its time (render-limits.ts). Both look alike from here: the step does not settle. Their CPU does
// not: a card of heavy CSS keeps its renderer (and the GPU process) busy for as long as it draws,
// while a renderer that is stopped (SIGSTOP) or deadlocked, or a browser that is, uses none. The
// first is the document's doing and is answered 400; the second is the machine's fault, and the
// request is tried once more on a fresh page (page-pool.ts).
//
// The CPU is watched for a moment at the time limit, not from the start of every step: reading
// /proc costs ~5 ms of the event loop, which every card's capture would pay, while a step over its
// time is rare, and one still drawing at its limit is drawing right then too.
//
// A step is the browser's only while it waits for the browser: a large JPEG or WebP card is
// compressed by this server after its capture (capture-card.ts), within the same time, while the
// browser rests; a step over its time then is the card's doing, answered 400 as ever.
//
// Chromium does not say which renderer process draws which page, so the whole process group of the
// browser is watched (the browser, its GPU process and every renderer). A frozen renderer beside
// another page that is busy drawing therefore looks busy, and is answered as before, unless it is
// stopped: a stopped process is seen as such whichever page it serves.
import { setTimeout as sleep } from 'node:timers/promises';
import { isStopped, processGroup, ticksPerSecond } from './process-table.js';

/** How long the browser's CPU is watched once a step has run over its time. */
const watchMs = 500;

/**
 * The least share of the watched time the browser's processes must use the CPU for, for the step to
 * count as still drawing. Measured here, on 2 cores shared with other work: the capture of a card of
 * 40 repeating gradients kept the browser at 3.4 s of CPU in 5 s (68 %) under a load of 3, and at
 * 0.16–0.18 s in the watched half second (32–36 %) under a load of 15; a renderer stopped during a
 * capture left the whole browser at 0.04 s in 5 s (0.8 %, its GPU process), 0 in half a second;
 * an idle browser 0–0.01 s. 10 % lies well between: 5 of /proc's clock ticks of 10 ms.
 */
const leastCpuShareWhileDrawing = 0.1;

/** A drawing step that ran over its time because the browser made no progress: the machine's fault. */
export class RendererStalled extends Error {
  constructor(what: string, timeoutMs: number, reason: string) {
    super(`${what} did not finish within ${timeoutMs.toLocaleString('en-US')} ms and the browser made no progress: ${reason}`);
    this.name = 'RendererStalled';
  }
}

/** What a step runs on: a render page (render-page.ts). */
export interface BrowserWork {
  /** The process group (pid) of the page's browser; undefined where it is not known. */
  readonly browserGroup: number | undefined;
  /** Whether the step waits for the browser now, rather than for this server's own work. */
  readonly waitingOnBrowser: boolean;
}

/**
 * Why the browser is not drawing what `work` waits for, or undefined when it is, when the step
 * does not wait for the browser, or when that cannot be told (off Linux, or the browser's pid is
 * not known): the step is then taken to be drawing, as every step was before this check existed.
 */
export async function whyNotDrawing(work: BrowserWork): Promise<string | undefined> {
  const { browserGroup } = work;
  if (browserGroup === undefined || !work.waitingOnBrowser) return undefined;
  const before = processGroup(browserGroup);
  if (before.length === 0) return undefined;
  const stopped = before.filter(isStopped);
  if (stopped.length > 0) return `Chromium process ${stopped.map((process) => process.pid).join(', ')} is stopped`;
  const started = performance.now();
  await sleep(watchMs);
  const seconds = (performance.now() - started) / 1000;
  const ticksBefore = new Map(before.map((process) => [process.pid, process.cpuTicks]));
  // A process started meanwhile (a new renderer) counts from zero.
  const ticks = processGroup(browserGroup).reduce((sum, process) => sum + process.cpuTicks - (ticksBefore.get(process.pid) ?? 0), 0);
  const cpuSeconds = ticks / ticksPerSecond;
  // Still waiting for the browser at the end, too: the step did not move on to the server's work.
  if (cpuSeconds >= leastCpuShareWhileDrawing * seconds || !work.waitingOnBrowser) return undefined;
  return `its processes used ${cpuSeconds.toFixed(2)} s of CPU in ${seconds.toFixed(1)} s`;
}
