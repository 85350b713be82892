// Everything of the HTTP service around the card pipeline: API keys, error handling, rate limits
// and every route. buildApp (app.ts) loads this module while the browser starts, since most of the
// code the service loads at start-up is imported from here.
import type { FastifyInstance } from 'fastify';
import type { Cards } from '../cards/index.js';
import { checkStorageAtStartup } from '../cards/storage/startup-check.js';
import type { Storage } from '../cards/storage/storage.js';
import type { Config } from '../config.js';
import { loadApiKeys, type ApiKeyStore } from './api-keys.js';
import { registerConfigRoute } from './config-route.js';
import { registerCoverRoute } from './cover-route.js';
import { installErrorHandlers } from './error-handler.js';
import { registerLocalFilesRoute } from './files-route.js';
import { registerGenerateRoute } from './generate-route.js';
import { registerHealthRoutes } from './health-route.js';
import { registerJobs } from './jobs-setup.js';
import type { Metrics } from './metrics.js';
import { registerMetricsRoute } from './metrics-route.js';
import { registerApiReference, registerOpenApi } from './openapi.js';
import { registerRateLimit } from './rate-limit.js';
import { registerSavedRequestRoute } from './saved-request-route.js';
import { registerThemesRoute } from './themes-route.js';
import { registerUserInfoRoute } from './user-info-route.js';
import { registerWebRoutes } from './web-route.js';
import type { SharedRedis } from '../shared-state/redis.js';
import { KeyUsage } from '../shared-state/key-usage.js';
import { RevokedKeys } from '../shared-state/revoked-keys.js';

export interface ServiceParts {
  config: Config;
  cards: Cards;
  storage: Storage;
  metrics: Metrics;
  /** Shared state of replicas (REDIS_URL); each replica's memory without it. */
  redis?: SharedRedis;
}

export interface SetUpService {
  apiKeys: ApiKeyStore;
  /** Settles when the store has been checked. */
  warmedUp: Promise<unknown>;
}

export async function setUpService(server: FastifyInstance, parts: ServiceParts): Promise<SetUpService> {
  const { config, cards, storage, metrics, redis } = parts;
  const revocations = redis ? new RevokedKeys(redis, server.log) : undefined;
  const apiKeys = loadApiKeys(config, server.log, revocations);
  server.requestLogRedaction.recognizeKeys((candidate) => apiKeys.recognizes(candidate));
  server.addHook('onClose', async () => {
    apiKeys.close();
    revocations?.close();
  });

  installErrorHandlers(server, config.bodyLimit);
  await registerRateLimit(server, { perMinute: config.rateLimitPerMinute, redis }, apiKeys);
  await registerOpenApi(server, { themes: cards.themes, bodyLimit: config.bodyLimit, connections: config.connections });
  // After the document generator, so /metrics is in it; its counting hook still sees every route
  // (Fastify attaches hooks to routes when the server gets ready).
  registerMetricsRoute(server, metrics);
  const generateDeps = {
    cards,
    apiKeys,
    requestTimeoutMs: config.requestTimeoutMs,
    cacheEnabled: config.renderCache !== undefined,
    publicBaseUrl: config.publicBaseUrl,
    usage: new KeyUsage(redis),
    metrics,
  };
  registerGenerateRoute(server, generateDeps);
  await registerJobs(server, config, generateDeps);
  registerCoverRoute(server, generateDeps);
  registerUserInfoRoute(server, generateDeps);
  registerSavedRequestRoute(server, storage);
  registerThemesRoute(server, cards.themes);
  registerConfigRoute(server);
  registerHealthRoutes(server, storage, cards.renderer);
  if (config.storage === 'local') await registerLocalFilesRoute(server, config.dataDir);
  await registerWebRoutes(server, { cards, storage, requestTimeoutMs: config.requestTimeoutMs, previewBudget: config.previewBudget, redis });
  await registerApiReference(server);

  // An unreachable store is logged, never fatal: /ready reports it until it is back.
  const warmedUp = checkStorageAtStartup(storage, server.log);
  return { apiKeys, warmedUp };
}
