// Runs the HTTP service: read the configuration, build the service (browser warm), listen, close
// cleanly on SIGTERM/SIGINT (see shutdown.ts) and re-read the API key file on SIGHUP.
//
// The rest of the service is imported only once the signal handlers are in place: loading it takes
// a moment, and a stop signal in that moment should still end the process cleanly.
import { ConfigError, loadConfig, type Config, type ConfigOptions } from '../config.js';
import type { App } from './app.js';
import { limitHeapGrowth } from './heap-growth.js';
import { shutDown } from './shutdown.js';

/** `options` are what `cardwright serve` sets on its command line. */
export async function runServer(options: ConfigOptions = {}): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env, options);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }

  // The stop signals are handled from the very start: a SIGTERM that arrives while the browser is
  // still starting must not kill Node with Chromium left running. It is remembered, and acted on
  // as soon as there is something to shut down.
  let app: App | undefined;
  let stopSignal: string | undefined;
  const stop = (signal: string) => {
    if (stopSignal) return;
    stopSignal = signal;
    if (app) runShutdown(app, signal);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // SIGHUP re-reads API_KEYS_FILE (it is also re-read when it changes); before start-up ends
  // there is nothing to re-read, and the default action would end the process.
  process.on('SIGHUP', () => app?.apiKeys.reload());

  // The Markdown workers start loading the pipeline (about a second of CPU each, Shiki and KaTeX
  // included) now, on their own threads, while this thread imports the rest of the service and the
  // browser starts: the service's core is handed this pool and finds it warm.
  const { MarkdownPool, markdownPoolOptions } = await import('../cards/markdown/markdown-pool.js');
  const markdownPool = new MarkdownPool(markdownPoolOptions(config));
  markdownPool.warmUp().then(
    () => markdownPool.warmLazyParts(),
    () => undefined, // the service's own warm-up reports it
  );
  // Chromium starts (some 0.3 s) before the rest of the service is imported, so its start overlaps
  // those imports, and the first render page opens on it.
  const { EarlyBrowser } = await import('../cards/render/early-browser.js');
  const firstBrowser = new EarlyBrowser(config.chromiumPath);
  const { buildApp } = await import('./app.js');
  if (stopSignal) {
    await firstBrowser.close();
    process.exit(0);
  }
  try {
    // The service holds the pool and the browser from now on and closes them when it stops.
    app = await buildApp(config, { markdownPool, firstBrowser });
  } catch (error) {
    await Promise.all([markdownPool.close(), firstBrowser.close()]);
    throw error;
  }
  const { server } = app;
  if (stopSignal) return runShutdown(app, stopSignal);

  if (app.apiKeys.generatedKey) {
    // Printed once, on the start that created it; it is stored in DATA_DIR for later starts.
    console.log(`\nNo API key was configured, so one was created and saved in ${app.apiKeys.source}:\n\n  ${app.apiKeys.generatedKey}\n`);
  } else {
    server.log.info({ source: app.apiKeys.source }, 'API keys loaded');
  }
  try {
    await server.listen({ port: config.port, host: config.host });
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
  // The heaps' growth is held once the service is ready, not from its start: start-up allocates
  // mostly what lives as long as the process (code, the Markdown pipeline, the routes), and with
  // the growth held V8 collected at every quarter more, about 0.27 s of CPU before ready
  // (docs/performance.md#start-up). V8 reads the flag at every collection, in every thread.
  limitHeapGrowth();
}

function runShutdown(app: App, signal: string): void {
  shutDown(app, signal).then(
    (code) => process.exit(code),
    (error) => {
      app.server.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    },
  );
}
