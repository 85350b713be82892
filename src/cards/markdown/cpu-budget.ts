// One document's CPU time budget (MARKDOWN_CPU_LIMIT_MS) across its passes in the Markdown workers
// (markdown-pool.ts): the CPU time each worker thread uses on it, read from the kernel's per-thread
// accounting (/proc) every 50 ms, so a busy machine or the workers' lower priority never counts
// against a document. Where there is no /proc, the wall time of each pass is counted instead
// (never less than its CPU time; a pass never waits for anything but the CPU).
import fs from 'node:fs';

const clockTicksPerMs = 100 / 1000;

/** The CPU time (user + system) a thread of this process has used, in ms; undefined without /proc. */
export function threadCpuMs(threadId: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${threadId}/stat`, 'utf8');
    // Fields after the command name in parentheses: state is field 3, utime 14 and stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicksPerMs;
  } catch {
    return undefined;
  }
}

interface Pass {
  /** Time this pass has used so far, in ms. */
  used(): number;
  /** Stops watching the pass. */
  end(): void;
}

export class CpuBudget {
  private pass: Pass | undefined;
  /** Whether the budget ran out (and the pass running then was stopped). */
  expired = false;

  constructor(private remainingMs: number) {}

  /** A pass starts on the worker thread with this kernel id (undefined: none known); `stop` ends it when the budget runs out. */
  start(threadId: number | undefined, stop: () => void): void {
    const expire = () => {
      if (this.expired) return;
      this.expired = true;
      this.end();
      stop();
    };
    const base = threadId === undefined ? undefined : threadCpuMs(threadId);
    if (base === undefined) {
      const since = performance.now();
      const timer = setTimeout(expire, Math.max(0, this.remainingMs));
      this.pass = { used: () => performance.now() - since, end: () => clearTimeout(timer) };
      return;
    }
    let usedMs = 0;
    /** Reads the thread's time; false when it cannot be read (the thread is gone): its last reading stands. */
    const read = () => {
      const now = threadCpuMs(threadId!);
      if (now !== undefined) usedMs = now - base;
      return now !== undefined;
    };
    const poll = setInterval(() => {
      if (!read() || usedMs >= this.remainingMs) expire();
    }, 50);
    this.pass = {
      used: () => {
        read();
        return usedMs;
      },
      end: () => clearInterval(poll),
    };
  }

  /** The CPU time (or, without /proc, the wall time) the document's passes have used, in ms. */
  spentMs = 0;

  /** The pass is over: the time it used is taken off what the next pass may use. */
  end(): void {
    const pass = this.pass;
    if (!pass) return;
    this.pass = undefined;
    pass.end();
    const used = pass.used();
    this.remainingMs -= used;
    this.spentMs += used;
  }
}
