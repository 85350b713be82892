// Graceful stop, for SIGTERM/SIGINT: refuse new work (503 overloaded, /ready turns 503), let the
// requests in flight finish within SHUTDOWN_GRACE_MS, then close every browser. Past the grace
// period the browsers are closed anyway, so a stuck request can never keep the process alive.
import type { App } from './app.js';

/** Resolves with the exit code: 0 when everything in flight finished, 1 when the grace period ran out. */
export async function shutDown(app: App, signal: string): Promise<number> {
  const { server, config } = app;
  const { renderer } = app.cards;
  server.log.info({ signal, graceMs: config.shutdownGraceMs, inFlight: renderer.activeRenders + renderer.queueLength }, 'shutting down: finishing requests in flight');
  renderer.beginDrain();

  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), config.shutdownGraceMs);
  });
  // Stops listening, waits for open requests, then runs the close hooks (browser, key watcher).
  const closed = server.close().then(() => 'closed' as const);
  // Node closes the connections that are idle when closing starts; a keep-alive connection whose
  // request finishes later would hold the close open until its keep-alive timeout.
  const idleSweep = setInterval(() => server.server.closeIdleConnections(), 100);
  const outcome = await Promise.race([closed, graceOver]);
  clearTimeout(timer);
  clearInterval(idleSweep);
  if (outcome === 'closed') {
    server.log.info('stopped cleanly');
    return 0;
  }
  server.log.warn({ renders: renderer.activeRenders }, 'grace period over; closing with requests still in flight');
  server.server.closeAllConnections();
  await app.cards.close();
  return 1;
}
