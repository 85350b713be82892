// Graceful stop, for SIGTERM/SIGINT: refuse new work (503 overloaded), and keep listening while the
// operations in flight finish, so /ready answers 503 "draining" and load balancers take this
// replica out of rotation instead of finding its port closed; then stop listening, let the last
// requests finish, and close every browser. All of it within SHUTDOWN_GRACE_MS: past it the
// browsers are closed anyway, so a stuck request can never keep the process alive.
import type { App } from './app.js';

/** How often a draining service looks whether its operations have finished. */
const drainPollMs = 100;

/** Resolves with the exit code: 0 when everything in flight finished, 1 when the grace period ran out. */
export async function shutDown(app: App, signal: string): Promise<number> {
  const { server, config, cards } = app;
  const { renderer } = cards;
  server.log.info({ signal, graceMs: config.shutdownGraceMs, inFlight: cards.operationsInProgress }, 'shutting down: finishing requests in flight');
  renderer.beginDrain();
  const graceEnds = performance.now() + config.shutdownGraceMs;
  const graceLeft = () => Math.max(0, graceEnds - performance.now());

  // Still listening: /ready says "draining" while the operations under way finish.
  while (cards.operationsInProgress > 0 && graceLeft() > 0) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(drainPollMs, graceLeft())));
  }

  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), graceLeft());
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
  await cards.close();
  return 1;
}
