// Entry point: read the configuration, build the service (browser warm), listen, close cleanly on
// SIGTERM/SIGINT (see shutdown.ts) and re-read the API key file on SIGHUP.
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { shutDown } from './shutdown.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }

  const app = await buildApp(config);
  const { server } = app;
  if (app.apiKeys.generatedKey) {
    // Printed once, on the start that created it; it is stored in DATA_DIR for later starts.
    console.log(`\nNo API key was configured, so one was created and saved in ${app.apiKeys.source}:\n\n  ${app.apiKeys.generatedKey}\n`);
  } else {
    server.log.info({ source: app.apiKeys.source }, 'API keys loaded');
  }
  await server.listen({ port: config.port, host: config.host });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    shutDown(app, signal).then(
      (code) => process.exit(code),
      (error) => {
        server.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // SIGHUP re-reads API_KEYS_FILE (it is also re-read when it changes).
  process.on('SIGHUP', () => app.apiKeys.reload());
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
