// Admission and deadlines under load: a bounded queue answered with 503 at once, one deadline over
// queue wait and render that cancels the work, readiness that tells the truth, and /metrics; two
// services in one process, each with its own settings.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { countNear, decodePng, download } from './helpers/images.js';
import { metric } from './helpers/metrics.js';
import { eventually } from './helpers/processes.js';
import { startService, type RunningService } from './helpers/service.js';

/** Small content whose render takes a while (a blurred, finely patterned block). */
const slowBody = (width: number) => ({
  markdown: '<div style="height:3000px;background:repeating-linear-gradient(45deg,#f00 0 3px,#00f 3px 7px);filter:blur(30px)"></div>',
  width,
  scale: 2,
});

function assertErrorShape(json: any, label: string): void {
  assert.equal(json.error, label);
  assert.equal(typeof json.message, 'string');
  assert.ok(json.message.length > 10);
  assert.equal(typeof json.requestId, 'string');
}

/**
 * 'two services in one process' and 'health, readiness and metrics' need a service with the same
 * settings (two render pages, one Markdown worker): they share one, which saves a start. The
 * health tests count what their own requests added; their last test drains it, and it is closed
 * when the file ends.
 */
let defaultService: Promise<RunningService> | undefined;
const sharedDefaultService = () => {
  defaultService ??= startService({ RENDER_CONCURRENCY: '2', MARKDOWN_THREADS: '1' });
  return defaultService;
};
after(async () => (await defaultService?.catch(() => undefined))?.close());

describe('admission: one renderer, a queue of one', () => {
  let service: RunningService;
  before(async () => {
    service = await startService({ RENDER_CONCURRENCY: '1', QUEUE_MAX: '1' });
  });
  after(async () => service.close());

  it('answers requests above capacity with 503 overloaded and Retry-After, and every other one with its image', async () => {
    const colours = ['#e01010', '#10a020', '#1030d0', '#d0a000', '#a010c0', '#00a0a0', '#804000', '#606060'];
    const results = await Promise.all(
      colours.map((colour, i) =>
        service.generate({ markdown: `<div style="height:1200px;background:${colour};filter:blur(8px)"></div>`, width: 300 + i * 10, scale: 1 }),
      ),
    );
    const statuses = results.map((r) => r.status);
    assert.ok(statuses.every((s) => s === 200 || s === 503), `statuses ${statuses}`);
    assert.ok(statuses.includes(503), `eight simultaneous requests on one renderer and a queue of one: ${statuses}`);
    assert.ok(statuses.includes(200));
    for (const [i, result] of results.entries()) {
      if (result.status === 503) {
        assertErrorShape(result.json, 'overloaded');
        assert.equal(result.headers.get('retry-after'), '1');
        continue;
      }
      const png = await decodePng((await download(result.json.images[0].url)).bytes);
      assert.equal(png.width, 300 + i * 10, 'the image has this request\'s width');
      const rgb = colours[i]!.match(/\w\w/g)!.map((hex) => parseInt(hex, 16)) as [number, number, number];
      assert.ok(countNear(png, rgb, 30) > png.width * 200, `the image shows this request's colour ${colours[i]}`);
    }
    assert.equal(service.app.cards.renderer.queueLength, 0);
    assert.equal(service.app.cards.renderer.activeRenders, 0);
  });

  it('reports a full queue on /ready, and ready again once it drains', async () => {
    const first = service.generate(slowBody(1200));
    const second = service.generate(slowBody(1200));
    let sawFull = false;
    for (let i = 0; i < 100 && !sawFull; i++) {
      const ready = await fetch(`${service.baseUrl}/ready`);
      const body = (await ready.json()) as any;
      if (ready.status === 503) {
        assert.match(body.queue, /queue is full/);
        sawFull = true;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await Promise.all([first, second]);
    assert.ok(sawFull, '/ready said 503 while one request rendered and one waited');
    const ready = await fetch(`${service.baseUrl}/ready`);
    assert.equal(ready.status, 200);
    assert.equal(((await ready.json()) as any).status, 'ready');
  });
});

describe('two services in one process', () => {
  let service: RunningService;
  before(async () => {
    service = await sharedDefaultService();
  });

  it('each keeps its own settings (its Markdown workers and their CPU budget), and one closing leaves the other working', async () => {
    const strict = await startService({ MARKDOWN_THREADS: '1', MARKDOWN_CPU_LIMIT_MS: '100' });
    // Some 15,000 characters of lists, emphasis and links: several times 100 ms of CPU, far below the default 5 s.
    const markdown = Array.from({ length: 200 }, (_, n) => `- item **${n}** with *emphasis* and [a link](https://example.com/${n}) \`code\``).join('\n');
    try {
      const [refused, rendered] = await Promise.all([strict.generate({ markdown, scale: 1 }), service.generate({ markdown, scale: 1 })]);
      assert.equal(refused.status, 400, JSON.stringify(refused.json));
      assertErrorShape(refused.json, 'invalid_request');
      assert.match(refused.json.message, /more than 100 ms of CPU time/);
      assert.equal(rendered.status, 200, JSON.stringify(rendered.json));
    } finally {
      await strict.close();
    }
    const after = await service.generate({ markdown: '# Still here', scale: 1 });
    assert.equal(after.status, 200, JSON.stringify(after.json));
  });
});

describe('deadline', () => {
  let service: RunningService;
  before(async () => {
    service = await startService({ RENDER_CONCURRENCY: '1', REQUEST_TIMEOUT_MS: '600' });
  });
  after(async () => service.close());

  it('answers 504 timeout when the render outlasts REQUEST_TIMEOUT_MS, discards its page and stores nothing', async () => {
    const discardedBefore = await metric(service.baseUrl, 'cardwright_pages_discarded_total');
    const { status, json } = await service.generate(slowBody(2000));
    assert.equal(status, 504);
    assertErrorShape(json, 'timeout');
    // The page that was rendering is closed, which stops the work inside Chromium.
    assert.equal(await metric(service.baseUrl, 'cardwright_pages_discarded_total'), discardedBefore + 1);
    assert.equal(await metric(service.baseUrl, 'cardwright_render_duration_seconds_count', { outcome: 'cancelled' }), 1);
    assert.equal(service.app.cards.renderer.activeRenders, 0);
    assert.deepEqual(fs.readdirSync(`${service.dataDir}/screenshots`), []);
    // The service keeps working on a fresh page, within the same short deadline. Retried for a while:
    // on a busy machine opening the replacement page, or even a small render, can take over 600 ms.
    let attempt = 0;
    const recovered = await eventually(
      async () => (await service.generate({ markdown: `after the timeout ${attempt++}`, scale: 1 })).status === 200,
      60_000,
    );
    assert.ok(recovered, 'a small request succeeds after the cancelled one');
    assert.ok(service.app.cards.renderer.openPages <= 1);
  });

  it('counts the queue wait against the deadline', async () => {
    const blocker = service.generate(slowBody(2000));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // It waits behind the blocker for most of its deadline, and its own render is not quick either.
    const waiting = await service.generate(slowBody(1000));
    assert.equal(waiting.status, 504);
    assertErrorShape(waiting.json, 'timeout');
    assert.equal((await blocker).status, 504);
    assert.equal(service.app.cards.renderer.queueLength, 0);
  });
});

describe('health, readiness and metrics', () => {
  let service: RunningService;
  before(async () => {
    service = await sharedDefaultService();
  });

  it('answers /health and /ready without a key', async () => {
    const health = await fetch(`${service.baseUrl}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
    const ready = await fetch(`${service.baseUrl}/ready`);
    assert.equal(ready.status, 200);
  });

  it('exposes request counts, histograms, queue, renders and storage in Prometheus format', async () => {
    const { sampleOf } = await import('./helpers/metrics.js');
    // The counts before this test's requests (the service is shared with an earlier test).
    const textBefore = await (await fetch(`${service.baseUrl}/metrics`)).text();
    const added = (text: string, name: string, labels: Record<string, string> = {}) => sampleOf(text, name, labels) - sampleOf(textBefore, name, labels);
    const ok = await service.generate({ markdown: '# metrics' });
    assert.equal(ok.status, 200);
    await service.generate({ width: 'wide' });
    await fetch(`${service.baseUrl}/screenshots/nothing-here.png`);
    const response = await fetch(`${service.baseUrl}/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/plain/);
    const text = await response.text();
    for (const name of [
      'cardwright_http_requests_total',
      'cardwright_render_duration_seconds_bucket',
      'cardwright_queue_wait_seconds_bucket',
      'cardwright_queue_length',
      'cardwright_active_renders',
      'cardwright_browser_restarts_total',
      'cardwright_images_stored_total',
      'cardwright_stored_bytes_total',
      'cardwright_process_resident_memory_bytes',
    ]) {
      assert.match(text, new RegExp(`^${name}`, 'm'), name);
    }
    assert.equal(added(text, 'cardwright_http_requests_total', { route: '/api/generate', status: '200' }), 1);
    assert.equal(added(text, 'cardwright_http_requests_total', { route: '/api/generate', status: '400' }), 1);
    assert.equal(added(text, 'cardwright_images_stored_total'), 1);
    assert.equal(added(text, 'cardwright_stored_bytes_total'), ok.json.images[0].bytes);
    assert.equal(added(text, 'cardwright_render_duration_seconds_count', { outcome: 'ok' }), 1);
    assert.equal(sampleOf(text, 'cardwright_queue_length'), 0);
    // Stored file names never become label values.
    assert.doesNotMatch(text, /nothing-here/);
  });

  it('refuses new work with 503 and reports not ready once draining', async () => {
    service.app.cards.renderer.beginDrain();
    const { status, json, headers } = await service.generate({});
    assert.equal(status, 503);
    assertErrorShape(json, 'overloaded');
    assert.match(json.message, /shutting down/);
    assert.equal(headers.get('retry-after'), '1');
    const ready = await fetch(`${service.baseUrl}/ready`);
    assert.equal(ready.status, 503);
    assert.match(((await ready.json()) as any).draining, /shutting down/);
  });
});

describe('render pages: ready with one, the others warmed while idle', () => {
  let service: RunningService;
  before(async () => {
    service = await startService({ RENDER_CONCURRENCY: '3' });
  });
  after(async () => service.close());

  it('serves at once and opens every page it may use once it has been idle', async () => {
    const first = await service.generate({ markdown: '# first' });
    assert.equal(first.status, 200);
    assert.ok(
      await eventually(() => service.app.cards.renderer.openPages === 3, 60_000),
      `all three pages open; ${service.app.cards.renderer.openPages} are`,
    );
    // Every page serves: three requests side by side all get their own image.
    const results = await Promise.all(['red', 'green', 'blue'].map((word) => service.generate({ markdown: `# ${word}` })));
    assert.deepEqual(results.map((r) => r.status), [200, 200, 200]);
    assert.equal(new Set(results.map((r) => r.json.images[0].url)).size, 3);
    assert.equal(service.app.cards.renderer.openPages, 3);
  });
});
