// Everything of the service around the renderer: API keys, storage, the render cache and every
// route. buildApp (app.ts) loads this module while the browser starts, since most of the code
// the service loads at start-up is imported from here.
import type { FastifyInstance } from 'fastify';
import { loadApiKeys, type ApiKeyStore } from './api-keys.js';
import { installErrorHandlers } from './error-handler.js';
import { registerLocalFilesRoute } from './files-route.js';
import { registerGenerateRoute } from './generate-route.js';
import { registerHealthRoutes } from './health-route.js';
import { registerMetricsRoute } from './metrics-route.js';
import { registerApiReference, registerOpenApi } from './openapi.js';
import { registerRateLimit } from './rate-limit.js';
import { registerThemesRoute } from './themes-route.js';
import { registerWebRoutes } from './web-route.js';
import type { Config } from '../config.js';
import { CachedImageFetcher } from '../cards/images/cached-image-fetcher.js';
import { RemoteImageFetcher } from '../cards/images/remote-image-fetcher.js';
import { renderMarkdown } from '../cards/markdown/render-markdown.js';
import type { Metrics } from './metrics.js';
import { RenderCache, rendererVersion } from '../cards/render-cache.js';
import type { Renderer } from '../cards/render/renderer.js';
import { createStorage } from '../cards/storage/create-storage.js';
import { PendingDeletions } from '../cards/storage/pending-deletions.js';
import { checkStorageAtStartup } from '../cards/storage/startup-check.js';
import type { Storage } from '../cards/storage/storage.js';
import type { ThemeRegistry } from '../cards/themes/registry.js';
import { packageVersion } from '../version.js';

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
