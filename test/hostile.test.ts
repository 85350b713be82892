// Hostile inputs: no document, image or connection may freeze, exhaust or outlast the service.
// Every attack goes over real HTTP to a real service (real Chromium), while a second client keeps
// asking /health; each must get our error shape with the right status in bounded time, and /health
// must keep answering fast the whole time. The bounds are the ones README.md's limits table lists.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RemoteImageFetcher } from '../src/cards/images/remote-image-fetcher.js';
import { keepCollectingGarbage } from './helpers/gc.js';
import { startHangingServer, type HangingServer } from './helpers/hanging-server.js';
import { startService, type RunningService } from './helpers/service.js';

/** POSTs JSON and answers status, parsed body and the time it took. */
async function post(baseUrl: string, route: string, body: unknown, headers: Record<string, string> = {}) {
  const started = performance.now();
  const response = await fetch(`${baseUrl}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = { unparsed: text };
  }
  return { status: response.status, json, ms: performance.now() - started };
}

describe('time limits are timers held by the request, and fire after garbage collections', () => {
  let hanging: HangingServer;
  let service: RunningService;
  const deadlineMs = 1500;

  before(async () => {
    hanging = await startHangingServer();
    service = await startService({ REQUEST_TIMEOUT_MS: String(deadlineMs), REMOTE_IMAGES_ALLOWLIST: hanging.hostPort, RENDER_CACHE: 'off' });
  });
  after(async () => {
    await service?.close();
    await hanging?.close();
  });

  it('an image fetch stops at its time limit even when collections run while it waits', async () => {
    const fetcher = new RemoteImageFetcher({ policy: 'public', allowlist: [hanging.hostPort], timeoutMs: 400 });
    const stop = keepCollectingGarbage();
    const started = performance.now();
    try {
      await assert.rejects(fetcher.fetch(`${hanging.origin}/stuck.png`), (error: Error) => {
        assert.equal(error.name, 'TimeoutError');
        return true;
      });
    } finally {
      stop();
    }
    const took = performance.now() - started;
    assert.ok(took < 400 + 1000, `the fetch gave up after ${Math.round(took)} ms, its limit is 400 ms`);
  });

  for (const route of ['/api/preview', '/api/generate'] as const) {
    it(`${route} answers 504 at its deadline while an image hangs and collections run`, async () => {
      const stop = keepCollectingGarbage();
      try {
        const { status, json, ms } = await post(
          service.baseUrl,
          route,
          { markdown: `# Stuck\n\n![stuck](${hanging.origin}/stuck-${route.length}.png)` },
          { 'x-api-key': 'test-key-0123456789abcdef' },
        );
        assert.equal(status, 504, JSON.stringify(json));
        assert.equal(json.error, 'timeout');
        assert.ok(ms >= deadlineMs - 50 && ms < deadlineMs + 2000, `answered after ${Math.round(ms)} ms; the deadline is ${deadlineMs} ms`);
      } finally {
        stop();
      }
    });
  }
});
