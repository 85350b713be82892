// Objects of a failed request that could not be deleted at once (typically because the store went
// away mid-request) are retried here in the background, with growing pauses, until the store is
// back. Bounded in keys and attempts; whatever is given up on, or still pending at shutdown, is
// logged with its key so an operator can remove it.
import type { Logger } from '../logger.js';
import pLimit from 'p-limit';
import type { Storage } from './storage.js';

const firstPauseMs = 1_000;
const longestPauseMs = 60_000;
/** About ten minutes of retrying with the pauses above. */
const maxRounds = 14;
const maxPendingKeys = 10_000;
/** Deletions in flight at once during a sweep. */
const sweepConcurrency = 6;

export class PendingDeletions {
  private readonly keys = new Set<string>();
  private round = 0;
  private timer?: NodeJS.Timeout;
  private sweeping = false;
  private closed = false;

  constructor(
    private readonly storage: Storage,
    private readonly log: Logger,
  ) {}

  /** Number of keys still waiting to be deleted. */
  get size(): number {
    return this.keys.size;
  }

  add(keys: string[]): void {
    if (this.closed) {
      this.log.warn({ fileNames: keys }, 'shutting down: these objects of a failed request stay in the store; delete them by hand');
      return;
    }
    for (const key of keys) {
      if (this.keys.size >= maxPendingKeys) {
        this.log.error({ fileName: key }, 'too many objects waiting for deletion: this one is left in the store; delete it by hand');
        continue;
      }
      this.keys.add(key);
    }
    // New work restarts the pauses from the shortest: the store may well be back already.
    this.round = 0;
    this.schedule();
  }

  /** Stops retrying; keys still pending are logged for an operator. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.keys.size > 0) this.log.warn({ fileNames: [...this.keys] }, 'shutting down with objects of failed requests still in the store; delete them by hand');
    this.keys.clear();
  }

  private schedule(): void {
    if (this.closed || this.timer || this.sweeping || this.keys.size === 0) return;
    const pause = Math.min(longestPauseMs, firstPauseMs * 2 ** this.round);
    this.timer = setTimeout(() => void this.sweep(), pause);
    // Pending clean-up never keeps the process alive on its own.
    this.timer.unref();
  }

  private async sweep(): Promise<void> {
    this.timer = undefined;
    this.sweeping = true;
    const batch = [...this.keys];
    const limit = pLimit(sweepConcurrency);
    const results = await Promise.allSettled(batch.map((key) => limit(() => this.storage.delete(key))));
    this.sweeping = false;
    if (this.closed) return;
    let failures = 0;
    results.forEach((result, index) => {
      if (result.status === 'fulfilled') this.keys.delete(batch[index]!);
      else failures += 1;
    });
    if (failures === 0) {
      this.log.info({ count: batch.length }, 'deleted the leftover objects of failed requests');
    } else if (++this.round >= maxRounds) {
      this.log.error({ fileNames: [...this.keys] }, 'giving up deleting the leftover objects of failed requests; delete them by hand');
      this.keys.clear();
    }
    this.schedule();
  }
}
