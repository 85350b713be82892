// Entry point: read the configuration, build the service (browser warm), listen, and close
// cleanly on SIGTERM/SIGINT so in-flight requests finish and no Chromium process is left behind.
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';

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
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.log.info({ signal }, 'shutting down: finishing requests in flight');
    await server.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
