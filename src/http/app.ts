// buildApp(config): the whole service as a Fastify instance, with its browser already warm.
// server.ts listens with it; tests build it with their own configuration.
//
// Start-up order matters for how soon the service is ready: the browser is launched and its first
// page warmed first, and the rest of the service (Markdown pipeline, storage, routes: most of the
// code to load) is imported and set up while Chromium does that work in its own processes.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { ApiKeyStore } from './api-keys.js';
import { requestValidationOptions } from '../cards/request/validation-options.js';
import type { Config } from '../config.js';
import { Metrics } from './metrics.js';
import { buildShellDocument } from '../cards/render/shell-document.js';
import { Renderer } from '../cards/render/renderer.js';
import type { Storage } from '../cards/storage/storage.js';
import { loadThemes, type ThemeRegistry } from '../cards/themes/registry.js';
import { fastifyTrustProxy } from './trust-proxy.js';

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
    // request.ip (preview budget, rate limit of unauthenticated requests) from X-Forwarded-For only
    // when it comes from a proxy the operator named.
    trustProxy: fastifyTrustProxy(config.trustProxy),
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

  const metrics = new Metrics();
  const shellHtml = buildShellDocument(themes);
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
  // Warm start: the first request is as fast as any later one.
  const rendererStarted = renderer.start();

  try {
    const { setUpService } = await import('./set-up-service.js');
    const { storage, apiKeys, warmedUp } = await setUpService(server, { config, themes, renderer, metrics, shellHtml });
    await Promise.all([rendererStarted, warmedUp]);
    await server.ready();
    return { server, config, themes, renderer, storage, apiKeys, metrics };
  } catch (error) {
    await rendererStarted.catch(() => {});
    await server.close().catch(() => {});
    throw error;
  }
}
