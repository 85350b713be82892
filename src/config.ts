// Configuration from environment variables, validated once at start-up.
// Every problem is collected and reported together, each with what to set, so an operator fixes
// a bad deployment in one pass instead of one restart per mistake.
import os from 'node:os';
import path from 'node:path';
import { allowlistProblems } from './cards/images/address-policy.js';
import { readS3Config, s3VariableNames, type S3Config } from './cards/storage/s3-config.js';
import { parseTrustProxy, type TrustProxy } from './http/trust-proxy.js';

export type RemoteImagesPolicy = 'off' | 'public' | 'allowlist';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  /** Origin (and optional path) that stored files' URLs start with when STORAGE=local. */
  publicBaseUrl: string;
  /** Where local storage, the generated API key and other state live. */
  dataDir: string;
  /** Keys given directly in API_KEYS (comma separated). Empty when not set. */
  apiKeys: string[];
  /** A file of keys, one per line. */
  apiKeysFile?: string;
  storage: 'local' | 's3';
  /** The bucket settings; present exactly when storage is 's3'. */
  s3?: S3Config;
  chromiumPath?: string;
  requestTimeoutMs: number;
  renderConcurrency: number;
  queueMax: number;
  themesDir?: string;
  remoteImages: RemoteImagesPolicy;
  remoteImagesAllowlist: string[];
  logLevel: LogLevel;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** Identical repeated requests are answered from memory; undefined when RENDER_CACHE=off. */
  renderCache?: { maxEntries: number; ttlMs: number };
  /** Renders after which the browser is replaced by a fresh one (0: never). */
  browserRestartAfter: number;
  /** How often the browser is probed; one that does not answer is killed and replaced (0: never). */
  browserProbeIntervalMs: number;
  /** How long a stopping service waits for requests in flight before it closes anyway. */
  shutdownGraceMs: number;
  /** Requests per API key and minute (0: unlimited). */
  rateLimitPerMinute: number;
  /** Redis holding the rate-limit counters shared by replicas; in memory when unset. */
  redisUrl?: string;
  /** Proxies whose X-Forwarded-For gives the client's address (false: the header is ignored). */
  trustProxy: TrustProxy;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Reads and checks the environment. Throws ConfigError listing every problem found. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = text(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max}; got "${raw}".`);
      return fallback;
    }
    return value;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = text(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name} must be one of ${allowed.join(', ')}; got "${raw}".`);
      return fallback;
    }
    return raw as T;
  };

  const port = integer('PORT', 3000, 0, 65535);
  const host = text('HOST') ?? '0.0.0.0';

  let publicBaseUrl = text('PUBLIC_BASE_URL') ?? `http://localhost:${port}`;
  try {
    const url = new URL(publicBaseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
    publicBaseUrl = publicBaseUrl.replace(/\/+$/, '');
  } catch {
    problems.push(`PUBLIC_BASE_URL must be an absolute http(s) URL such as https://cards.example.com; got "${publicBaseUrl}".`);
  }

  const apiKeys = (text('API_KEYS') ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  for (const key of apiKeys) {
    if (key.length < 16) problems.push('API_KEYS: every key must be at least 16 characters long (a short key is guessable).');
  }

  const trustProxy = parseTrustProxy(text('TRUST_PROXY'));
  if ('problem' in trustProxy) problems.push(trustProxy.problem);

  const cores = Math.max(1, os.availableParallelism());
  const config: Config = {
    port,
    host,
    publicBaseUrl,
    dataDir: path.resolve(text('DATA_DIR') ?? 'data'),
    apiKeys,
    apiKeysFile: text('API_KEYS_FILE'),
    storage: oneOf('STORAGE', ['local', 's3'] as const, 'local'),
    chromiumPath: text('CHROMIUM_PATH'),
    requestTimeoutMs: integer('REQUEST_TIMEOUT_MS', 60_000, 100, 600_000),
    renderConcurrency: integer('RENDER_CONCURRENCY', cores, 1, 32),
    queueMax: integer('QUEUE_MAX', 64, 0, 10_000),
    themesDir: text('THEMES_DIR'),
    remoteImages: oneOf('REMOTE_IMAGES', ['off', 'public', 'allowlist'] as const, 'public'),
    remoteImagesAllowlist: (text('REMOTE_IMAGES_ALLOWLIST') ?? '').split(',').map((h) => h.trim()).filter(Boolean),
    logLevel: oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    bodyLimit: integer('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    renderCache:
      oneOf('RENDER_CACHE', ['on', 'off'] as const, 'on') === 'on'
        ? {
            maxEntries: integer('RENDER_CACHE_MAX_ENTRIES', 1000, 1, 1_000_000),
            ttlMs: integer('RENDER_CACHE_TTL_SECONDS', 3600, 1, 30 * 24 * 3600) * 1000,
          }
        : undefined,
    browserRestartAfter: integer('BROWSER_RESTART_AFTER', 5_000, 0, 10_000_000),
    browserProbeIntervalMs: integer('BROWSER_PROBE_INTERVAL_MS', 10_000, 0, 3_600_000),
    shutdownGraceMs: integer('SHUTDOWN_GRACE_MS', 25_000, 0, 3_600_000),
    rateLimitPerMinute: integer('RATE_LIMIT_PER_MINUTE', 0, 0, 1_000_000),
    redisUrl: text('REDIS_URL'),
    trustProxy: 'value' in trustProxy ? trustProxy.value : false,
  };

  if (config.storage === 's3') {
    config.s3 = readS3Config(text, problems);
  } else {
    // Images silently landing on one replica's disk instead of the bucket is worse than not starting.
    const stray = s3VariableNames.filter((name) => text(name) !== undefined);
    if (stray.length > 0) problems.push(`${stray.join(', ')} ${stray.length === 1 ? 'is' : 'are'} set but STORAGE is "${config.storage}": set STORAGE=s3 to store images in the bucket, or remove the S3_* settings.`);
  }
  if (config.remoteImages === 'allowlist' && config.remoteImagesAllowlist.length === 0) {
    problems.push('REMOTE_IMAGES=allowlist needs REMOTE_IMAGES_ALLOWLIST, a comma-separated list of host names.');
  }
  problems.push(...allowlistProblems(config.remoteImagesAllowlist));

  if (config.redisUrl && !/^rediss?:\/\//.test(config.redisUrl)) {
    problems.push('REDIS_URL must look like redis://host:6379 or rediss://user:password@host:6380.');
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
