// buildApp(config): the whole service as a Fastify instance, with its browser already warm.
// server.ts listens with it; tests build it with their own configuration.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { loadApiKeys, type ApiKeyStore } from './api/api-keys.js';
import { installErrorHandlers } from './api/error-handler.js';
import { registerLocalFilesRoute } from './api/files-route.js';
import { registerGenerateRoute } from './api/generate-route.js';
import { registerHealthRoutes } from './api/health-route.js';
import { registerThemesRoute } from './api/themes-route.js';
import type { Config } from './config.js';
import { buildShellDocument } from './render/shell-document.js';
import { Renderer } from './render/renderer.js';
import { LocalStorage } from './storage/local-storage.js';
import type { Storage } from './storage/storage.js';
import { loadThemes, type ThemeRegistry } from './themes/registry.js';

export interface App {
  server: FastifyInstance;
  config: Config;
  themes: ThemeRegistry;
  renderer: Renderer;
  storage: Storage;
  apiKeys: ApiKeyStore;
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
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    // Types are checked, not coerced: "440" is not a number and "true" is not a boolean.
    ajv: { customOptions: { coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: false } },
  });
  // Only JSON bodies are accepted; without this, text/plain would be parsed and reach validation.
  server.removeContentTypeParser('text/plain');
  server.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });

  const themes = loadThemes(config.themesDir);
  for (const problem of themes.problems) server.log.error({ file: problem.file }, `custom theme skipped: ${problem.message}`);

  const apiKeys = loadApiKeys(config);
  const storage = new LocalStorage(config.dataDir, config.publicBaseUrl);
  const renderer = new Renderer({
    shellHtml: buildShellDocument(themes),
    concurrency: config.renderConcurrency,
    queueMax: config.queueMax,
    chromiumPath: config.chromiumPath,
    log: server.log,
  });
  server.addHook('onClose', async () => renderer.close());

  installErrorHandlers(server, config.bodyLimit);
  registerGenerateRoute(server, { renderer, themes, storage, log: server.log, apiKeys, requestTimeoutMs: config.requestTimeoutMs });
  registerThemesRoute(server, themes);
  registerHealthRoutes(server, storage);
  await registerLocalFilesRoute(server, config.dataDir);

  await renderer.start();
  await server.ready();
  return { server, config, themes, renderer, storage, apiKeys };
}
