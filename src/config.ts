// Configuration from environment variables, validated once at start-up.
// Every problem is collected and reported together, each with what to set, so an operator fixes
// a bad deployment in one pass instead of one restart per mistake.
import os from 'node:os';
import path from 'node:path';
import type { CardsSettings } from './cards/index.js';
import { allowlistProblems } from './cards/images/address-policy.js';
import { folderProblem } from './cards/storage/make-directory.js';
import { readS3Config, s3VariableNames, type S3Config } from './cards/storage/s3-config.js';
import type { ConnectionLimits } from './http/connection-limits.js';
import { parseTrustProxy, type TrustProxy } from './http/trust-proxy.js';
import type { WebhookSettings } from './jobs/webhook.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config extends CardsSettings {
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
  requestTimeoutMs: number;
  logLevel: LogLevel;
  /** Log lines as JSON, or readable for a person (pino-pretty); by default pretty only on a terminal. */
  logFormat: 'json' | 'pretty' | 'auto';
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** Work a client address may spend on previews: a token bucket (see src/http/preview-budget.ts). */
  previewBudget: { burst: number; refillPerSecond: number };
  /** How long a stopping service waits for requests in flight before it closes anyway. */
  shutdownGraceMs: number;
  /** Requests per API key and minute (0: unlimited). */
  rateLimitPerMinute: number;
  /** Redis holding what replicas share (rate limits, preview budgets, revoked keys, the render cache's index); each replica's memory when unset. */
  redisUrl?: string;
  /** Proxies whose X-Forwarded-For gives the client's address (false: the header is ignored). */
  trustProxy: TrustProxy;
  /** Time limits and the per-address cap of connections (src/http/connection-limits.ts). */
  connections: ConnectionLimits;
  /** For the MCP server: a running cardwright to render with (CARDWRIGHT_URL, CARDWRIGHT_API_KEY). */
  remoteService?: { url: string; apiKey: string };
  /** Asynchronous jobs (POST /api/jobs, src/jobs/): how many run at once, how long finished ones are kept, their callbacks. */
  jobs: { concurrency: number; ttlMs: number; stalledMs: number; webhooks: WebhookSettings };
  /** Where the MCP server's local mode writes images when a call names no folder (CARDWRIGHT_OUTPUT_DIR). */
  outputDir: string;
}

/** What a front end changes: the CLI and the MCP server log only warnings unless told; `cardwright serve --port`. */
export interface ConfigOptions {
  defaultLogLevel?: LogLevel;
  /** Overrides PORT and HOST. */
  port?: number;
  host?: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * Every environment variable the configuration reads, for deployment files to be checked against
 * (test/deployment.test.ts). Found by letting loadConfig read an empty environment, which asks for
 * every variable (S3_* too: with the default STORAGE=local it checks none of them is set), so the
 * list cannot drift from what loadConfig reads.
 */
export function configVariableNames(): string[] {
  const asked = new Set<string>();
  const recorder = new Proxy<Env>({}, {
    get(_empty, name) {
      if (typeof name === 'string') asked.add(name);
      return undefined;
    },
  });
  loadConfig(recorder);
  return [...asked].sort();
}

/** Reads and checks the environment. Throws ConfigError listing every problem found. */
export function loadConfig(environment: Env = process.env, options: ConfigOptions = {}): Config {
  // Command-line options are checked exactly like the variables they stand in for.
  const overrides: Env = { PORT: options.port?.toString(), HOST: options.host };
  const problems: string[] = [];
  const text = (name: string): string | undefined => {
    const value = (overrides[name] ?? environment[name])?.trim();
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
    // The preview's own render pages (src/cards/render/renderer.ts): previews never wait for, or take, the others.
    previewRenderConcurrency: integer('PREVIEW_RENDER_CONCURRENCY', 1, 1, 32),
    previewQueueMax: integer('PREVIEW_QUEUE_MAX', 4, 0, 1000),
    themesDir: text('THEMES_DIR'),
    remoteImages: oneOf('REMOTE_IMAGES', ['off', 'public', 'allowlist'] as const, 'public'),
    remoteImagesAllowlist: (text('REMOTE_IMAGES_ALLOWLIST') ?? '').split(',').map((h) => h.trim()).filter(Boolean),
    logLevel: oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, options.defaultLogLevel ?? 'info'),
    logFormat: oneOf('LOG_FORMAT', ['json', 'pretty', 'auto'] as const, 'auto'),
    bodyLimit: integer('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    renderCache:
      oneOf('RENDER_CACHE', ['on', 'off'] as const, 'on') === 'on'
        ? {
            maxEntries: integer('RENDER_CACHE_MAX_ENTRIES', 1000, 1, 1_000_000),
            ttlMs: integer('RENDER_CACHE_TTL_SECONDS', 3600, 1, 30 * 24 * 3600) * 1000,
            maxBytes: integer('RENDER_CACHE_MAX_MB', 64, 1, 64 * 1024) * 1024 * 1024,
          }
        : undefined,
    previewImageCache: {
      maxBytes: integer('PREVIEW_IMAGE_CACHE_MB', 64, 1, 64 * 1024) * 1024 * 1024,
      ttlMs: integer('PREVIEW_IMAGE_CACHE_TTL_SECONDS', 600, 1, 24 * 3600) * 1000,
      // A failed image is asked for again on the next keystrokes; retrying it at once would
      // hammer its host, never retrying would keep a fixed URL broken.
      failureTtlMs: integer('PREVIEW_IMAGE_RETRY_SECONDS', 15, 1, 3600) * 1000,
    },
    // A 2,000-character document costs 2 tokens: at 20 tokens/s a typist never waits, while
    // documents at the 100,000-character limit pass about once in 2.5 s.
    previewBudget: {
      burst: integer('PREVIEW_BUDGET_BURST', 60, 1, 1_000_000),
      refillPerSecond: integer('PREVIEW_BUDGET_PER_SECOND', 20, 1, 1_000_000),
    },
    thumbnailTimeoutMs: integer('THUMBNAIL_TIMEOUT_MS', 20_000, 100, 600_000),
    browserRestartAfter: integer('BROWSER_RESTART_AFTER', 5_000, 0, 10_000_000),
    browserProbeIntervalMs: integer('BROWSER_PROBE_INTERVAL_MS', 10_000, 0, 3_600_000),
    browserProbeTimeoutMs: integer('BROWSER_PROBE_TIMEOUT_MS', 5_000, 100, 600_000),
    shutdownGraceMs: integer('SHUTDOWN_GRACE_MS', 25_000, 0, 3_600_000),
    rateLimitPerMinute: integer('RATE_LIMIT_PER_MINUTE', 0, 0, 1_000_000),
    redisUrl: text('REDIS_URL'),
    trustProxy: 'value' in trustProxy ? trustProxy.value : false,
    jobs: {
      // Below RENDER_CONCURRENCY: a job takes one render page at a time, leaving the rest to interactive requests.
      concurrency: integer('JOBS_CONCURRENCY', 1, 1, 16),
      ttlMs: integer('JOBS_TTL_SECONDS', 86_400, 60, 30 * 24 * 3600) * 1000,
      // With REDIS_URL: how long a replica may go silent on a job before another replica takes it over.
      stalledMs: integer('JOBS_STALLED_MS', 30_000, 1000, 600_000),
      webhooks: {
        secret: text('WEBHOOK_SECRET'),
        allowlist: (text('WEBHOOK_ALLOWLIST') ?? '').split(',').map((h) => h.trim()).filter(Boolean),
        attempts: integer('WEBHOOK_ATTEMPTS', 5, 1, 20),
        retryMs: integer('WEBHOOK_RETRY_MS', 10_000, 10, 3_600_000),
      },
    },
    outputDir: path.resolve(text('CARDWRIGHT_OUTPUT_DIR') ?? path.join(os.tmpdir(), 'cardwright')),
    markdownThreads: integer('MARKDOWN_THREADS', Math.max(2, Math.min(4, cores)), 1, 64),
    markdownCpuLimitMs: integer('MARKDOWN_CPU_LIMIT_MS', 5000, 100, 600_000),
    // What one request may cost the browser (src/cards/render/render-limits.ts).
    renderLimits: {
      maxPixels: integer('MAX_REQUEST_MEGAPIXELS', 200, 1, 100_000) * 1_000_000,
      maxBytes: integer('MAX_REQUEST_MB', 64, 1, 100_000) * 1024 * 1024,
      stepTimeoutMs: integer('CARD_RENDER_TIMEOUT_MS', 20_000, 100, 600_000),
    },
    connections: {
      headersTimeoutMs: integer('HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
      bodyTimeoutMs: integer('BODY_TIMEOUT_MS', 30_000, 100, 600_000),
      keepAliveTimeoutMs: integer('KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
      idleTimeoutMs: 0,
      maxConnectionsPerAddress: integer('MAX_CONNECTIONS_PER_ADDRESS', 64, 0, 1_000_000),
    },
  };
  // Longer than a request may take by default, so a client waiting for its answer is never cut off.
  config.connections.idleTimeoutMs = integer('IDLE_TIMEOUT_MS', config.requestTimeoutMs + 15_000, 1000, 3_600_000);
  if (config.connections.idleTimeoutMs <= config.requestTimeoutMs) {
    problems.push(`IDLE_TIMEOUT_MS (${config.connections.idleTimeoutMs}) must be longer than REQUEST_TIMEOUT_MS (${config.requestTimeoutMs}), or clients waiting for an answer are cut off.`);
  }
  if (config.connections.headersTimeoutMs > config.connections.bodyTimeoutMs) {
    problems.push(`HEADERS_TIMEOUT_MS (${config.connections.headersTimeoutMs}) must not be longer than BODY_TIMEOUT_MS (${config.connections.bodyTimeoutMs}): the body's time includes the headers'.`);
  }

  const remoteUrl = text('CARDWRIGHT_URL');
  const remoteKey = text('CARDWRIGHT_API_KEY');
  // A URL without a scheme ("cards.example.com") would be accepted here and fail every call later.
  if (remoteUrl && !/^https?:\/\/[^/]/i.test(remoteUrl)) {
    problems.push(`CARDWRIGHT_URL must be the service's absolute http(s) URL, such as https://cards.example.com; got "${remoteUrl}".`);
  } else if (remoteUrl && !URL.canParse(remoteUrl)) {
    problems.push(`CARDWRIGHT_URL is not a valid URL: "${remoteUrl}".`);
  }
  if (remoteUrl && remoteKey) config.remoteService = { url: remoteUrl, apiKey: remoteKey };
  else if (remoteUrl || remoteKey) problems.push('Set both CARDWRIGHT_URL and CARDWRIGHT_API_KEY to use a remote cardwright, or neither to render locally.');

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
  problems.push(...allowlistProblems(config.jobs.webhooks.allowlist, 'WEBHOOK_ALLOWLIST'));
  const webhookSecret = config.jobs.webhooks.secret;
  if (webhookSecret !== undefined && webhookSecret.length < 16) problems.push('WEBHOOK_SECRET must be at least 16 characters long (a short secret is guessable).');

  // Node's recursive mkdir never returns under /proc: such a folder would hang start-up.
  for (const [name, dir] of [['DATA_DIR', config.dataDir], ['CARDWRIGHT_OUTPUT_DIR', config.outputDir], ['API_KEYS_FILE', config.apiKeysFile]] as const) {
    const problem = dir === undefined ? undefined : folderProblem(name, dir);
    if (problem) problems.push(problem);
  }

  if (config.redisUrl && !/^rediss?:\/\//.test(config.redisUrl)) {
    problems.push('REDIS_URL must look like redis://host:6379 or rediss://user:password@host:6380.');
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** The configuration of a command (`cardwright render`, `cardwright mcp`): warnings only unless LOG_LEVEL says otherwise. */
export const loadCommandConfig = (): Config => loadConfig(process.env, { defaultLogLevel: 'warn' });
