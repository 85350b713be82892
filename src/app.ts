// buildApp(config): the whole service as a Fastify instance, with its browser already warm.
// server.ts listens with it; tests build it with their own configuration.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { loadApiKeys, type ApiKeyStore } from './api/api-keys.js';
import { requestValidationOptions } from './api/check-generate-body.js';
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
import { RemoteImageFetcher } from './images/remote-image-fetcher.js';
import { renderMarkdown } from './markdown/render-markdown.js';
import { Metrics } from './metrics.js';
import { RenderCache, rendererVersion } from './render-cache.js';
import { buildShellDocument } from './render/shell-document.js';
import { Renderer } from './render/renderer.js';
import { createStorage } from './storage/create-storage.js';
import { PendingDeletions } from './storage/pending-deletions.js';
import { checkStorageAtStartup } from './storage/startup-check.js';
import type { Storage } from './storage/storage.js';
import { loadThemes, type ThemeRegistry } from './themes/registry.js';
import { packageVersion } from './version.js';

export interface App {
  server: FastifyInstance;
  config: Config;
  themes: ThemeRegistry;
  renderer: Renderer;
  storage: Storage;
  apiKeys: ApiKeyStore;
  metrics: Metrics;
}

export interface BuildOptions {
  /** Logger settings; tests pass `false` or a quiet level. */
  logger?: FastifyServerOptions['logger'];
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const server = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      redact: { paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]'], censor: '[redacted]' },
    },
    bodyLimit: config.bodyLimit,
    // While stopping, requests on open connections get our own 503 (see Renderer.run), not Fastify's.
    return503OnClosing: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { ...requestValidationOptions } },
  });
  // Only JSON bodies are accepted; without this, text/plain would be parsed and reach validation.
  server.removeContentTypeParser('text/plain');
  server.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });

  const themes = loadThemes(config.themesDir);
  for (const problem of themes.problems) server.log.error({ file: problem.file }, `custom theme skipped: ${problem.message}`);

  const apiKeys = loadApiKeys(config, server.log);
  server.addHook('onClose', async () => apiKeys.close());
  const metrics = new Metrics();
  const storage = createStorage(config);
  const pendingDeletions = new PendingDeletions(storage, server.log);
  server.addHook('onClose', async () => pendingDeletions.close());
  const shellHtml = buildShellDocument(themes);
  const cache =
    config.renderCache &&
    new RenderCache({
      ...config.renderCache,
      maxBytes: 64 * 1024 * 1024,
      rendererVersion: rendererVersion(packageVersion, shellHtml),
    });
  const renderer = new Renderer({
    shellHtml,
    concurrency: config.renderConcurrency,
    queueMax: config.queueMax,
    chromiumPath: config.chromiumPath,
    restartAfter: config.browserRestartAfter,
    probeIntervalMs: config.browserProbeIntervalMs,
    log: server.log,
    observer: metrics,
  });
  metrics.watchPool(renderer);
  server.addHook('onClose', async () => renderer.close());

  installErrorHandlers(server, config.bodyLimit);
  registerMetricsRoute(server, metrics);
  await registerRateLimit(server, { perMinute: config.rateLimitPerMinute, redisUrl: config.redisUrl }, apiKeys);
  await registerOpenApi(server, themes);
  const remoteImages = new RemoteImageFetcher({ policy: config.remoteImages, allowlist: config.remoteImagesAllowlist });
  registerGenerateRoute(server, { renderer, themes, storage, pendingDeletions, log: server.log, apiKeys, requestTimeoutMs: config.requestTimeoutMs, remoteImages, cache, metrics });
  registerThemesRoute(server, themes);
  registerHealthRoutes(server, storage, renderer);
  if (config.storage === 'local') await registerLocalFilesRoute(server, config.dataDir);
  await registerWebRoutes(server, { themes, renderer, storage, requestTimeoutMs: config.requestTimeoutMs });
  await registerApiReference(server);

  // Warm start: the browser pages (fonts, capture path) and the Markdown pipeline's first run are
  // paid for here, so the first request is as fast as any later one. The store is checked
  // meanwhile; an unreachable store is logged, never fatal.
  await Promise.all([
    renderer.start(),
    renderMarkdown('# Warm-up\n\n**bold** *em* `code`\n\n- item\n\n| a |\n|---|\n| 1 |'),
    checkStorageAtStartup(storage, server.log),
  ]);
  await server.ready();
  return { server, config, themes, renderer, storage, apiKeys, metrics };
}
