// Everything of the service around the renderer: API keys, storage, the render cache and every
// route. buildApp (app.ts) loads this module while the browser starts, since most of the code
// the service loads at start-up is imported from here.
import type { FastifyInstance } from 'fastify';
import { loadApiKeys, type ApiKeyStore } from './api/api-keys.js';
import { installErrorHandlers } from './api/error-handler.js';
import { registerLocalFilesRoute } from './api/files-route.js';
import { registerGenerateRoute } from './api/generate-route.js';
import { registerHealthRoutes } from './api/health-route.js';
import { registerMetricsRoute } from './api/metrics-route.js';
import { registerApiReference, registerOpenApi } from './api/openapi.js';
import { registerRateLimit } from './api/rate-limit.js';
import { registerThemesRoute } from './api/themes-route.js';
import { registerWebRoutes } from './api/web-route.js';
import type { Config } from './config.js';
import { CachedImageFetcher } from './images/cached-image-fetcher.js';
import { RemoteImageFetcher } from './images/remote-image-fetcher.js';
import { renderMarkdown } from './markdown/render-markdown.js';
import type { Metrics } from './metrics.js';
import { RenderCache, rendererVersion } from './render-cache.js';
import type { Renderer } from './render/renderer.js';
import { createStorage } from './storage/create-storage.js';
import { PendingDeletions } from './storage/pending-deletions.js';
import { checkStorageAtStartup } from './storage/startup-check.js';
import type { Storage } from './storage/storage.js';
import type { ThemeRegistry } from './themes/registry.js';
import { packageVersion } from './version.js';

export interface ServiceParts {
  config: Config;
  themes: ThemeRegistry;
  renderer: Renderer;
  metrics: Metrics;
  /** The render pages' document; part of the render cache's version. */
  shellHtml: string;
}

export interface SetUpService {
  storage: Storage;
  apiKeys: ApiKeyStore;
  /** Settles when the Markdown pipeline has run once and the store has been checked. */
  warmedUp: Promise<unknown>;
}

export async function setUpService(server: FastifyInstance, parts: ServiceParts): Promise<SetUpService> {
  const { config, themes, renderer, metrics, shellHtml } = parts;
  const apiKeys = loadApiKeys(config, server.log);
  server.addHook('onClose', async () => apiKeys.close());
  const storage = await createStorage(config);
  const pendingDeletions = new PendingDeletions(storage, server.log);
  server.addHook('onClose', async () => pendingDeletions.close());
  const cache =
    config.renderCache &&
    new RenderCache({
      ...config.renderCache,
      maxBytes: 64 * 1024 * 1024,
      rendererVersion: rendererVersion(packageVersion, shellHtml),
    });

  installErrorHandlers(server, config.bodyLimit);
  registerMetricsRoute(server, metrics);
  await registerRateLimit(server, { perMinute: config.rateLimitPerMinute, redisUrl: config.redisUrl }, apiKeys);
  await registerOpenApi(server, themes);
  const remoteImages = new RemoteImageFetcher({ policy: config.remoteImages, allowlist: config.remoteImagesAllowlist });
  registerGenerateRoute(server, { renderer, themes, storage, pendingDeletions, log: server.log, apiKeys, requestTimeoutMs: config.requestTimeoutMs, remoteImages, cache, metrics });
  registerThemesRoute(server, themes);
  registerHealthRoutes(server, storage, renderer);
  if (config.storage === 'local') await registerLocalFilesRoute(server, config.dataDir);
  // The preview fetches under the same policy, but keeps images a while: it asks on every keystroke.
  const previewImages = new CachedImageFetcher(remoteImages, { maxBytes: 64 * 1024 * 1024, ttlMs: 10 * 60_000, failureTtlMs: 15_000 });
  await registerWebRoutes(server, { themes, renderer, storage, shellHtml, requestTimeoutMs: config.requestTimeoutMs, previewImages });
  await registerApiReference(server);

  // The Markdown pipeline's first run loads its grammars and plug-ins, so the first request does
  // not pay for it. The store is checked meanwhile; an unreachable store is logged, never fatal.
  const warmedUp = Promise.all([
    renderMarkdown('# Warm-up\n\n**bold** *em* `code`\n\n- item\n\n| a |\n|---|\n| 1 |'),
    checkStorageAtStartup(storage, server.log),
  ]);
  return { storage, apiKeys, warmedUp };
}
