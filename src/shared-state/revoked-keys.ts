// API keys revoked for every replica at once: `cardwright keys revoke` adds the key's SHA-256
// digest to a Redis set, and every replica reads that set once a second, so a revoked key stops
// working everywhere within about a second, without editing each replica's key file or waiting
// for a mounted Secret to be updated. The set read last stays in force while Redis is unavailable.
import type { Logger } from '../cards/logger.js';
import type { SharedRedis } from './redis.js';

const revokedSet = 'cardwright:revoked-keys';
const refreshIntervalMs = 1_000;

export class RevokedKeys {
  private digests = new Set<string>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly redis: SharedRedis,
    private readonly log: Logger,
  ) {
    this.timer = setInterval(() => void this.refresh(), refreshIntervalMs);
    this.timer.unref();
    redis.client.on('ready', () => void this.refresh());
  }

  /** Whether the key with this SHA-256 digest (hex) was revoked. */
  has(digestHex: string): boolean {
    return this.digests.has(digestHex);
  }

  async refresh(): Promise<void> {
    const members = await this.redis.attempt((client) => client.smembers(revokedSet));
    if (!members) return;
    if (members.length !== this.digests.size) this.log.info({ revoked: members.length }, 'revoked API keys updated');
    this.digests = new Set(members);
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/** Adds a key's digest (hex) to the shared set of revoked keys. */
export async function revokeEverywhere(redis: SharedRedis, digestHex: string): Promise<void> {
  // Sent on the first connection: a revocation must not silently fall back to nothing.
  await redis.client.sadd(revokedSet, digestHex);
}
