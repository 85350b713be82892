// `cardwright keys create`: makes a new API key and adds it where the service reads its keys
// (API_KEYS_FILE, else DATA_DIR/api-keys.txt), then prints it.
// `cardwright keys revoke <key>`: removes the key from that file and, with REDIS_URL, revokes it
// for every replica sharing that Redis (src/shared-state/revoked-keys.ts).
import { once } from 'node:events';
import fs from 'node:fs';
import { pino } from 'pino';
import { createApiKey, defaultKeyFile, keyDigestHex } from '../http/api-keys.js';
import { loadConfig, type Config } from '../config.js';
import { parseCommandLine, UsageError } from './command-line.js';
import { keysCommand } from './commands.js';

export async function runKeys(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(keysCommand, args);
  if (positionals[0] === 'revoke' && positionals.length === 2) return revoke(positionals[1]!);
  if (positionals.length !== 1 || positionals[0] !== 'create') {
    throw new UsageError(`keys needs the action "create" or "revoke <key>"; got ${positionals.length === 0 ? 'none' : positionals.join(' ')}.`);
  }
  const config = loadConfig();
  if (config.apiKeys.length > 0 && !config.apiKeysFile) {
    // With API_KEYS set the service reads no key file, so a key saved in one would never work.
    throw new Error('API_KEYS is set, so the service accepts only the keys listed there. Add a key to API_KEYS, or set API_KEYS_FILE to a file for new keys.');
  }
  const file = config.apiKeysFile ?? defaultKeyFile(config);
  const { key } = createApiKey({ file, hashed: values.hashed === true });
  process.stdout.write(`${key}\n`);
  // The service polls its key file (see api-keys.ts), so the key works without a restart.
  const saved = values.hashed ? 'Its SHA-256 digest is saved' : 'Saved';
  process.stderr.write(`${saved} in ${file}; a running service accepts it within a second.\n`);
}

async function revoke(key: string): Promise<void> {
  const config = loadConfig();
  const digest = keyDigestHex(key);
  const removed = removeFromKeyFile(config, digest);
  if (removed) process.stderr.write(`Removed from ${removed}.\n`);
  if (config.redisUrl) {
    await revokeInRedis(config.redisUrl, digest);
    process.stderr.write('Revoked for every replica sharing REDIS_URL; they refuse it within a second.\n');
  } else if (!removed) {
    throw new Error('The key is in no key file and REDIS_URL is not set, so there is nothing to revoke it in. Remove it from API_KEYS, or set REDIS_URL to revoke it for every replica.');
  }
}

/** Removes the lines granting the key (itself or its sha256: entry); answers the file when one was removed. */
function removeFromKeyFile(config: Config, digest: string): string | undefined {
  const file = config.apiKeysFile ?? (config.apiKeys.length === 0 ? defaultKeyFile(config) : undefined);
  if (!file || !fs.existsSync(file)) return undefined;
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const kept = lines.filter((line) => {
    const entry = line.trim();
    return !entry || entry.startsWith('#') || keyDigestHex(entry) !== digest;
  });
  if (kept.length === lines.length) return undefined;
  fs.writeFileSync(file, kept.join('\n'));
  return file;
}

async function revokeInRedis(url: string, digest: string): Promise<void> {
  const [{ SharedRedis }, { revokeEverywhere }] = await Promise.all([import('../shared-state/redis.js'), import('../shared-state/revoked-keys.js')]);
  // Quiet: a connection failure is reported once, below, in the command's own words.
  const redis = new SharedRedis(url, pino({ level: 'silent' }));
  try {
    const connected = once(redis.client, 'ready').then(() => true);
    const gaveUp = new Promise<false>((resolve) => setTimeout(() => resolve(false), 5_000).unref());
    if (!(await Promise.race([connected, gaveUp]))) throw new Error(`Redis at REDIS_URL did not answer within 5 s; the key is not revoked for other replicas.`);
    await revokeEverywhere(redis, digest);
  } finally {
    redis.close();
  }
}
