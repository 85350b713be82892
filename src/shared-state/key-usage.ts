// How many cards each API key has made (the `cost` of its answers), for GET /api/user/info. Counted
// in Redis when it answers, so every replica adds to and reads one total that outlives restarts;
// also in this replica's memory, which answers while Redis does not (or without REDIS_URL, since
// the process started). Keys are named by ApiKeyStore.idOf, never by the key itself.
import type { SharedRedis } from './redis.js';

const redisKey = (keyId: string) => `cardwright:used:${keyId}`;

export class KeyUsage {
  /** Only valid keys are counted, so this holds at most one entry per key of the key file. */
  private readonly local = new Map<string, number>();

  constructor(private readonly redis?: SharedRedis) {}

  /** Adds `cards` to the key's count; never fails the answer it is called for. */
  add(keyId: string, cards: number): void {
    this.local.set(keyId, (this.local.get(keyId) ?? 0) + cards);
    void this.redis?.attempt((client) => client.incrby(redisKey(keyId), cards));
  }

  async used(keyId: string): Promise<number> {
    const shared = await this.redis?.attempt((client) => client.get(redisKey(keyId)));
    return typeof shared === 'string' ? Number(shared) : (this.local.get(keyId) ?? 0);
  }
}
