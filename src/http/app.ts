// buildApp(config): the whole service as a Fastify instance, with its browser already warm.
// server.ts listens with it; tests build it with their own configuration.
//
// Start-up order matters for how soon the service is ready: the browser is launched and its first
// page warmed first, and the rest of the service (Markdown pipeline, storage, routes: most of the
// code to load) is imported and set up while Chromium does that work in its own processes.
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { ApiKeyStore } from './api-keys.js';
import type { Config } from '../config.js';
import { createCards, type Cards } from '../cards/index.js';
import type { MarkdownPool } from '../cards/markdown/markdown-pool.js';
import type { EarlyBrowser } from '../cards/render/early-browser.js';
import { createStorage } from '../cards/storage/create-storage.js';
import type { Storage } from '../cards/storage/storage.js';
import { createHttpServer } from './http-server.js';
import { Metrics } from './metrics.js';
import type { SharedRedis } from '../shared-state/redis.js';

export interface App {
  server: FastifyInstance;
  config: Config;
  /** The card pipeline every route calls. */
  cards: Cards;
  storage: Storage;
  apiKeys: ApiKeyStore;
  metrics: Metrics;
}

export interface BuildOptions {
  /** Logger settings; tests pass `false` or a quiet level. */
  logger?: FastifyServerOptions['logger'];
  /** Markdown workers already opened with this configuration (run-server.ts opens them early); the service closes them. */
  markdownPool?: MarkdownPool;
  /** A browser launched with this configuration (run-server.ts launches it early); the service closes it. */
  firstBrowser?: EarlyBrowser;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const server = createHttpServer(config, options.logger);

  const metrics = new Metrics();
  const storage = createStorage(config);
  // What replicas share (REDIS_URL): rate limits, preview budgets, key revocations, the render cache's index.
  const redis = config.redisUrl ? await connectSharedState(config.redisUrl, server) : undefined;
  // Only a bucket is shared: with STORAGE=local an entry would name files on another replica's disk,
  // which this replica would find missing and forget, undoing the other replica's entry.
  const sharedCache =
    redis && config.renderCache && config.storage === 's3' ? (await import('../shared-state/render-cache-index.js')).redisAnswerIndex(redis) : undefined;
  const cards = createCards({ settings: config, log: server.log, storage, observer: metrics, sharedCache, markdownPool: options.markdownPool, firstBrowser: options.firstBrowser });
  metrics.watchPool(cards.renderer);
  if (redis) metrics.watchSharedState(redis);
  server.addHook('onClose', async () => cards.close());
  // Warm start: the first request is as fast as any later one.
  const cardsStarted = cards.start();

  try {
    const { setUpService } = await import('./set-up-service.js');
    const { apiKeys, warmedUp } = await setUpService(server, { config, cards, metrics, storage: await storage, redis });
    // Fastify loads its plugins (the API reference, static files) while the browser warms its page.
    await Promise.all([cardsStarted, warmedUp, server.ready()]);
    return { server, config, cards, storage: await storage, apiKeys, metrics };
  } catch (error) {
    await cardsStarted.catch(() => {});
    await server.close().catch(() => {});
    throw error;
  }
}

async function connectSharedState(url: string, server: FastifyInstance): Promise<SharedRedis> {
  const { SharedRedis } = await import('../shared-state/redis.js');
  const redis = new SharedRedis(url, server.log);
  // Registered before the routes' hooks, so it runs after them: Redis is closed last.
  server.addHook('onClose', async () => redis.close());
  return redis;
}
