// Entry point of `npm start` (node dist/server.js): the HTTP service with the environment's configuration.
import { enableCompileCache } from './compile-cache.js';

enableCompileCache();
const { runServer } = await import('./http/run-server.js');
await runServer().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
