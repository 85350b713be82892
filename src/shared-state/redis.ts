// The one Redis connection of a replica (REDIS_URL), holding what replicas share: rate-limit
// counters, preview budgets, revoked API keys and the render cache's index.
//
// Redis is a help, never a dependency: every caller has its own memory to fall back on, so a
// command either answers quickly or fails quickly. There is no offline queue (a command sent while
// disconnected fails at once instead of piling up), every command has a time limit, and the
// client reconnects in the background. An outage is logged once when it starts and once when it
// ends, not once per failed command.
import { Redis } from 'ioredis';
import type { Logger } from '../cards/logger.js';

/** A command that takes longer is given up and the caller falls back to its memory. */
const commandTimeoutMs = 500;
const connectTimeoutMs = 1_000;
/** Reconnection attempts back off to this interval. */
const maxReconnectDelayMs = 2_000;

export class SharedRedis {
  readonly client: Redis;
  private down = false;
  private lastSlowLog = 0;

  constructor(url: string, private readonly log: Logger) {
    this.client = new Redis(url, {
      connectTimeout: connectTimeoutMs,
      commandTimeout: commandTimeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(100 * attempt, maxReconnectDelayMs),
      // Replicas start before Redis in some deployments: the first connection is tried in the background.
      lazyConnect: false,
    });
    this.client.on('error', (error) => this.markDown(error));
    this.client.on('close', () => this.markDown());
    this.client.on('ready', () => {
      if (!this.down) return;
      this.down = false;
      this.log.info('shared state (Redis) reachable again: rate limits, preview budgets, key revocations and the render cache are shared again');
    });
  }

  /** Whether commands can be sent now. */
  get ready(): boolean {
    return this.client.status === 'ready';
  }

  /**
   * Runs `command`, or answers undefined when Redis is not connected or the command fails: the
   * caller then uses its own memory. Never throws.
   */
  async attempt<T>(command: (client: Redis) => Promise<T>): Promise<T | undefined> {
    if (!this.ready) return undefined;
    try {
      return await command(this.client);
    } catch (error) {
      if (!this.ready) this.markDown(error as Error);
      else this.slowCommand(error as Error);
      return undefined;
    }
  }

  close(): void {
    this.client.disconnect();
  }

  /** A command failed on a live connection (too slow, or refused): logged at most once a minute. */
  private slowCommand(error: Error): void {
    const now = Date.now();
    if (now - this.lastSlowLog < 60_000) return;
    this.lastSlowLog = now;
    this.log.warn({ problem: error.message }, 'a shared-state (Redis) command failed; this request used the replica\'s own memory');
  }

  private markDown(error?: Error): void {
    if (this.down || this.client.status === 'end') return;
    this.down = true;
    this.log.warn(
      { problem: error?.message ?? 'connection closed' },
      'shared state (Redis) unavailable: each replica counts rate limits and preview budgets and caches renders in its own memory until it is back',
    );
  }
}
