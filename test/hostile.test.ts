// Hostile inputs: no document, image or connection may freeze, exhaust or outlast the service.
// Every attack goes over real HTTP to a real service (real Chromium), while a second client keeps
// asking /health; each must get our error shape with the right status in bounded time, and /health
// must keep answering fast the whole time. The bounds are the ones README.md's limits table lists.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { RemoteImageFetcher } from '../src/cards/images/remote-image-fetcher.js';
import { keepCollectingGarbage } from './helpers/gc.js';
import { watchHealth, type HealthReport } from './helpers/health-watch.js';
import { startHangingServer, type HangingServer } from './helpers/hanging-server.js';
import { startService, testApiKey, type RunningService } from './helpers/service.js';

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
        assert.ok(ms >= deadlineMs - 50 && ms < deadlineMs + 5000, `answered after ${Math.round(ms)} ms; the deadline is ${deadlineMs} ms`);
      } finally {
        stop();
      }
    });
  }
});

/** Inputs that used to overflow the stack (500), each with the depth the answer must name. */
const deepInputs: { name: string; markdown: string; mdxMode?: boolean; depth: string }[] = [
  // A list item counts two levels (the list and the item), a quote one, the text in them one more.
  { name: '"- " × 1,500', markdown: '- '.repeat(1500) + 'x', depth: '3,001' },
  { name: '"1. " × 1,500', markdown: '1. '.repeat(1500) + 'x', depth: '3,001' },
  { name: '"> - " × 1,000', markdown: '> - '.repeat(1000) + 'x', depth: '3,001' },
  { name: '"> " × 3,000', markdown: '> '.repeat(3000) + 'x', depth: '3,001' },
  { name: '<div> × 5,000', markdown: '<div>'.repeat(5000) + 'x', depth: '5,000' },
  { name: 'MDX <span> × 3,000', markdown: '<span>'.repeat(3000) + 'x' + '</span>'.repeat(3000), mdxMode: true, depth: '3,000' },
];

/** Inputs a scan of the raw text refuses before parsing, with the construct the answer must name. */
const precheckedInputs: { name: string; markdown: string; names: RegExp }[] = [
  { name: '"*_" × 50,000', markdown: '*_'.repeat(50_000), names: /a run of 100,000 emphasis delimiters.*at most 1,000/ },
  { name: 'a fence highlight list of 12,000 ranges', markdown: '```ts {' + Array.from({ length: 12_000 }, (_, i) => i + 1).join(',') + '}\nx\n```', names: /highlight list of 12,000 ranges; at most 100/ },
  { name: '16,000 KaTeX formulas', markdown: '$x^2$ '.repeat(16_000), names: /16,000 math formulas; at most 1,000/ },
];

/**
 * /health while an attack runs: it never fails, its median stays under 50 ms once there are enough
 * answers for a median, and no answer waits a second (before the worker pool, one document held it
 * for 150 s). The slowest answer is bounded generously because the test machine's cores are shared;
 * `npm run bench:hostile` measures the real figures.
 */
const healthMedianMs = 50;
const healthWorstMs = 1000;

function assertHealthy(report: HealthReport, during: string): void {
  if (process.env.SHOW_HEALTH) console.log(during.slice(0, 40), JSON.stringify(report));
  assert.equal(report.failures, 0, `/health failed ${report.failures} times during ${during}`);
  assert.ok(report.count > 0, `/health never answered during ${during}`);
  if (report.count >= 10) assert.ok(report.p50 < healthMedianMs, `/health took ${report.p50.toFixed(0)} ms (median) during ${during}`);
  assert.ok(report.max < healthWorstMs, `/health took up to ${report.max.toFixed(0)} ms during ${during}`);
}

describe('hostile documents are refused in bounded time while /health keeps answering', () => {
  let service: RunningService;
  const cpuLimitMs = 2000;

  before(async () => {
    service = await startService({ MARKDOWN_CPU_LIMIT_MS: String(cpuLimitMs), RENDER_CACHE: 'off' });
  });
  after(async () => service?.close());

  /** Sends one attack while /health is watched; answers the attack's result. */
  async function attack(route: '/api/generate' | '/api/preview', body: unknown) {
    const health = watchHealth(service.baseUrl);
    try {
      return await post(service.baseUrl, route, body, { 'x-api-key': testApiKey });
    } finally {
      assertHealthy(await health.stop(), `${route} with ${JSON.stringify(body).slice(0, 40)}…`);
    }
  }

  for (const input of deepInputs) {
    it(`nesting ${input.name} is a 400 naming the depth and the bound`, async () => {
      const { status, json, ms } = await attack('/api/generate', { markdown: input.markdown, mdxMode: input.mdxMode ?? false });
      assert.equal(status, 400, JSON.stringify(json));
      assert.equal(json.error, 'invalid_request');
      assert.match(json.message, new RegExp(`nests ${input.depth} levels deep .*at most 100 levels`));
      assert.ok(ms < 2000, `answered after ${Math.round(ms)} ms`);
    });
  }

  for (const input of precheckedInputs) {
    it(`${input.name} is refused before parsing, naming the construct`, async () => {
      const { status, json, ms } = await attack('/api/generate', { markdown: input.markdown });
      assert.equal(status, 400, JSON.stringify(json));
      assert.equal(json.error, 'invalid_request');
      assert.match(json.message, input.names);
      assert.ok(ms < 2000, `answered after ${Math.round(ms)} ms`);
    });
  }

  it('the unauthenticated preview refuses "*_" × 50,000 at once', async () => {
    const { status, json, ms } = await attack('/api/preview', { markdown: '*_'.repeat(50_000) });
    assert.equal(status, 400, JSON.stringify(json));
    assert.match(json.message, /a run of 100,000 emphasis delimiters/);
    assert.ok(ms < 2000, `answered after ${Math.round(ms)} ms`);
  });

  it('"[" × 10,000 renders, in bounded time', async () => {
    const { status, json, ms } = await attack('/api/generate', { markdown: '['.repeat(10_000) });
    assert.equal(status, 200, JSON.stringify(json));
    assert.ok(ms < 20_000, `answered after ${Math.round(ms)} ms`);
  });

  it('a ts code block of "a=/[" × 24,000 is stopped at the CPU limit, naming the block; the next document renders', async () => {
    const markdown = '```ts\n' + 'a=/['.repeat(24_000) + '\n```';
    const { status, json, ms } = await attack('/api/preview', { markdown });
    assert.equal(status, 400, JSON.stringify(json));
    assert.equal(json.error, 'invalid_request');
    assert.match(json.message, /more than 2,000 ms of CPU time .*while highlighting the ts code block at line 1/);
    // CPU time, not wall time: on a busy machine it takes longer to use up, but always well within the deadline.
    assert.ok(ms < 60_000, `answered after ${Math.round(ms)} ms`);
    // The worker that ran it was replaced: the pool still turns documents into cards.
    const next = await attack('/api/generate', { markdown: '# After\n\n```ts\nconst a = 1;\n```' });
    assert.equal(next.status, 200, JSON.stringify(next.json));
  });

  it('emphasis delimiter runs of any make-up: refused over the bound, rendered under it (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('*', '_'), { minLength: 1, maxLength: 3000 }), fc.string({ maxLength: 20 }), async (run, text) => {
        const markdown = `${text.replace(/[*_]/g, '')} ${run.join('')} end`;
        const { status, json } = await post(service.baseUrl, '/api/preview', { markdown });
        if (run.length > 1000) {
          assert.equal(status, 400, JSON.stringify(json));
          assert.match(json.message, new RegExp(`a run of ${run.length.toLocaleString('en-US')} emphasis delimiters`));
        } else {
          assert.equal(status, 200, JSON.stringify(json));
        }
      }),
      { numRuns: 12 },
    );
  });

  it('nesting of every kind: refused over the bound, rendered under it (fast-check)', async () => {
    const kinds = ['- ', '1. ', '> ', '> - ', '* > ', '<div>', '<blockquote>'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...kinds), fc.oneof(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 120, max: 3000 })), async (kind, times) => {
        const { status, json } = await post(service.baseUrl, '/api/preview', { markdown: kind.repeat(times) + 'x' });
        if (times > 100) {
          assert.equal(status, 400, JSON.stringify(json));
          assert.match(json.message, /nests [\d,]+ levels deep .*at most 100 levels/);
        } else {
          assert.equal(status, 200, JSON.stringify(json));
        }
      }),
      { numRuns: 14 },
    );
  });
});
