// Hostile inputs: no document, image or connection may freeze, exhaust or outlast the service.
// Every attack goes over real HTTP to a real service (real Chromium), while a second client keeps
// asking /health; each must get our error shape with the right status in bounded time, and /health
// must keep answering fast the whole time. The bounds are the ones README.md's limits table lists.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { CachedImageFetcher } from '../src/cards/images/cached-image-fetcher.js';
import { RemoteImageFetcher } from '../src/cards/images/remote-image-fetcher.js';
import { MarkdownPool } from '../src/cards/markdown/markdown-pool.js';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import { keepCollectingGarbage } from './helpers/gc.js';
import { watchHealth } from './helpers/health-watch.js';
import { assertHealthy, post } from './helpers/hostile.js';
import { startHangingServer, type HangingServer } from './helpers/hanging-server.js';
import { startImageServer } from './helpers/local-image-server.js';
import { startService, testApiKey, type RunningService } from './helpers/service.js';

/** A raw connection to the service; answers everything it receives until the server closes it. */
function rawConnection(baseUrl: string): { socket: net.Socket; received: Promise<{ text: string; ms: number }> } {
  const { hostname, port } = new URL(baseUrl);
  const started = performance.now();
  const socket = net.connect(Number(port), hostname);
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  const received = new Promise<{ text: string; ms: number }>((resolve) => {
    socket.on('close', () => resolve({ text, ms: performance.now() - started }));
    socket.on('error', () => {});
  });
  return { socket, received };
}

/** The JSON body of a raw HTTP answer. */
const bodyOf = (answer: string): any => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

describe('time and connection limits', () => {
  let hanging: HangingServer;
  let service: RunningService;
  const deadlineMs = 1500;
  const headersTimeoutMs = 1000;
  const bodyTimeoutMs = 2000;
  const maxConnections = 8;
  const logLines: string[] = [];

  before(async () => {
    hanging = await startHangingServer();
    service = await startService(
      {
        REQUEST_TIMEOUT_MS: String(deadlineMs),
        REMOTE_IMAGES_ALLOWLIST: hanging.hostPort,
        RENDER_CACHE: 'off',
        HEADERS_TIMEOUT_MS: String(headersTimeoutMs),
        BODY_TIMEOUT_MS: String(bodyTimeoutMs),
        MAX_CONNECTIONS_PER_ADDRESS: String(maxConnections),
      },
      { log: (line) => logLines.push(line) },
    );
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

  it('bodies dripped slower than BODY_TIMEOUT_MS are answered 408 and cut off in time, while /health answers', async () => {
    const health = watchHealth(service.baseUrl);
    const drippers = Array.from({ length: 4 }, () => {
      const connection = rawConnection(service.baseUrl);
      connection.socket.write('POST /api/preview HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"markdown":"');
      const drip = setInterval(() => connection.socket.writable && connection.socket.write('a'), 100);
      return connection.received.finally(() => clearInterval(drip));
    });
    const answers = await Promise.all(drippers);
    assertHealthy(await health.stop(), 'slow bodies');
    for (const { text, ms } of answers) {
      assert.match(text, /^HTTP\/1\.1 408 /);
      assert.equal(bodyOf(text).error, 'request_timeout');
      assert.match(bodyOf(text).message, /within 2000 ms \(BODY_TIMEOUT_MS\)/);
      // Node checks the limits once a second.
      assert.ok(ms >= bodyTimeoutMs - 100 && ms < bodyTimeoutMs + 1000 + 1500, `cut off after ${Math.round(ms)} ms`);
    }
  });

  it('headers dripped slower than HEADERS_TIMEOUT_MS are answered 408 and cut off in time', async () => {
    const { socket, received } = rawConnection(service.baseUrl);
    socket.write('GET /health HTTP/1.1\r\n');
    const drip = setInterval(() => socket.writable && socket.write('X-Slow: a\r\n'), 100);
    const { text, ms } = await received.finally(() => clearInterval(drip));
    assert.match(text, /^HTTP\/1\.1 408 /);
    assert.equal(bodyOf(text).error, 'request_timeout');
    assert.ok(ms < headersTimeoutMs + 1000 + 1500, `cut off after ${Math.round(ms)} ms`);
  });

  it(`an address holding ${maxConnections} connections gets 429 for the next one, in our shape`, async () => {
    const connections = Array.from({ length: maxConnections + 1 }, () => rawConnection(service.baseUrl));
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const { socket } of connections) socket.end();
    const answers = await Promise.all(connections.map((connection) => connection.received));
    const refused = answers.filter(({ text }) => text.startsWith('HTTP/1.1 429 '));
    assert.ok(refused.length >= 1, 'no connection was refused');
    assert.ok(answers.length - refused.length <= maxConnections);
    assert.equal(bodyOf(refused[0]!.text).error, 'rate_limited');
    assert.match(bodyOf(refused[0]!.text).message, /already has 8 connections open.*MAX_CONNECTIONS_PER_ADDRESS/);
    // Closed connections no longer count.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await fetch(`${service.baseUrl}/health`)).status, 200);
  });

  it('oversized headers get 431 in our shape', async () => {
    const response = await fetch(`${service.baseUrl}/health`, { headers: { 'x-big': 'a'.repeat(20_000) } });
    assert.equal(response.status, 431);
    const json = await response.json();
    assert.equal(json.error, 'headers_too_large');
    assert.match(json.message, /headers are larger than this server accepts/);
  });

  it('a malformed URL gets 400 in our shape', async () => {
    const response = await fetch(`${service.baseUrl}/api/themes/%zz/thumbnail.webp`);
    assert.equal(response.status, 400);
    const json = await response.json();
    assert.equal(json.error, 'invalid_request');
    assert.match(json.message, /URL is not valid/);
  });

  for (const [name, body, names] of [
    ['__proto__', '{"__proto__":{"polluted":true},"markdown":"a"}', /"__proto__" key/],
    ['constructor.prototype', '{"constructor":{"prototype":{"polluted":true}},"markdown":"a"}', /"constructor" key holding "prototype"/],
    ['broken JSON', '{"markdown": ', /not valid JSON: /],
  ] as const) {
    it(`a ${name} body gets 400 in our shape, naming what is refused`, async () => {
      const { status, json } = await post(service.baseUrl, '/api/preview', body);
      assert.equal(status, 400);
      assert.equal(json.error, 'invalid_request');
      assert.match(json.message, names);
      assert.equal(({} as any).polluted, undefined);
    });
  }

  for (const [length, message] of [
    [80, /^The theme in the path is too long: at most 64 characters are accepted\.$/],
    [200, /^A part of the path is too long: at most 100 characters/],
  ] as const) {
    it(`a ${length}-character theme id in the thumbnail path is refused with a message about the path`, async () => {
      const response = await fetch(`${service.baseUrl}/api/themes/${'a'.repeat(length)}/thumbnail.webp`);
      assert.equal(response.status, 400);
      const json = await response.json();
      assert.equal(json.error, 'invalid_request');
      assert.match(json.message, message);
    });
  }

  it('keys in a query string are not logged', async () => {
    await fetch(`${service.baseUrl}/health?api_key=${testApiKey}&token=abc123secret&page=2`);
    const logged = logLines.join('\n');
    assert.ok(logged.includes('/health?api_key=[redacted]&token=[redacted]&page=2'), 'the redacted URL is logged');
    assert.ok(!logged.includes(testApiKey) && !logged.includes('abc123secret'), 'a key reached the log');
  });

  it('<picture><source srcset> does not survive the sanitizer; the <img> in it follows the image rules', async () => {
    const markdown = '<picture><source srcset="http://10.0.0.1/a.png"><img src="http://10.0.0.2/b.png" srcset="http://10.0.0.3/c.png 2x" alt="pic"></picture>';
    const { status, json } = await post(service.baseUrl, '/api/preview', { markdown });
    assert.equal(status, 200, JSON.stringify(json));
    const html: string = json.cards[0].html;
    assert.doesNotMatch(html, /srcset|<source/i);
    assert.match(html, /image-placeholder[^>]*>pic</);
  });

  for (const literal of ['[::7f00:1]', '[::127.0.0.1]', '[::ffff:0:7f00:1]', '[64:ff9b:1::7f00:1]', '[2001:0:7f00:1::]']) {
    it(`an image at ${literal}, an IPv6 form of 127.0.0.1, is not fetched`, async () => {
      const port = new URL(hanging.origin).port;
      const { status, json, ms } = await post(service.baseUrl, '/api/preview', { markdown: `![blocked](http://${literal}:${port}/x.png)` });
      assert.equal(status, 200, JSON.stringify(json));
      assert.match(json.cards[0].html, /image-placeholder[^>]*>blocked</);
      assert.ok(ms < deadlineMs, 'the fetch was attempted');
    });
  }

  it('a symbolic link under /screenshots/ is not followed', async () => {
    const screenshots = path.join(service.dataDir, 'screenshots');
    fs.writeFileSync(path.join(service.dataDir, 'secret.txt'), 'not for the public');
    fs.symlinkSync(path.join(service.dataDir, 'secret.txt'), path.join(screenshots, 'link.png'));
    fs.symlinkSync(service.dataDir, path.join(screenshots, 'dir'));
    for (const name of ['link.png', 'dir/secret.txt']) {
      const response = await fetch(`${service.baseUrl}/screenshots/${name}`);
      assert.equal(response.status, 404, name);
      assert.equal((await response.json()).error, 'not_found');
    }
    fs.writeFileSync(path.join(screenshots, 'real.png'), 'x');
    assert.equal((await fetch(`${service.baseUrl}/screenshots/real.png`)).status, 200);
  });
});

/** Inputs that used to overflow the stack (500), each with the depth the answer must name. */
const deepInputs: { name: string; markdown: string; mdxMode?: boolean; depth: string }[] = [
  // A list item counts two levels (the list and the item), a quote one, the text in them one more.
  { name: '"- " × 1,500', markdown: `${'- '.repeat(1500)}x`, depth: '3,001' },
  { name: '"1. " × 1,500', markdown: `${'1. '.repeat(1500)}x`, depth: '3,001' },
  { name: '"> - " × 1,000', markdown: `${'> - '.repeat(1000)}x`, depth: '3,001' },
  { name: '"> " × 3,000', markdown: `${'> '.repeat(3000)}x`, depth: '3,001' },
  { name: '<div> × 5,000', markdown: `${'<div>'.repeat(5000)}x`, depth: '5,000' },
  { name: 'MDX <span> × 3,000', markdown: `${'<span>'.repeat(3000)}x${'</span>'.repeat(3000)}`, mdxMode: true, depth: '3,000' },
];

/** Inputs a scan of the raw text refuses before parsing, with the construct the answer must name. */
const precheckedInputs: { name: string; markdown: string; names: RegExp }[] = [
  { name: '"*_" × 50,000', markdown: '*_'.repeat(50_000), names: /a run of 100,000 emphasis delimiters.*at most 1,000/ },
  { name: 'a fence highlight list of 12,000 ranges', markdown: `\`\`\`ts {${Array.from({ length: 12_000 }, (_, i) => i + 1).join(',')}}\nx\n\`\`\``, names: /highlight list of 12,000 ranges; at most 100/ },
  { name: '16,000 KaTeX formulas', markdown: '$x^2$ '.repeat(16_000), names: /16,000 math formulas; at most 1,000/ },
];

describe('hostile documents are refused in bounded time while /health keeps answering', () => {
  let service: RunningService;
  const cpuLimitMs = 2000;

  before(async () => {
    // The preview budget is not under test here: attacks follow each other faster than it refills.
    service = await startService({
      MARKDOWN_CPU_LIMIT_MS: String(cpuLimitMs),
      RENDER_CACHE: 'off',
      PREVIEW_BUDGET_BURST: '1000000',
      PREVIEW_BUDGET_PER_SECOND: '1000000',
    });
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
    const markdown = `\`\`\`ts\n${'a=/['.repeat(24_000)}\n\`\`\``;
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
        const { status, json } = await post(service.baseUrl, '/api/preview', { markdown: `${kind.repeat(times)}x` });
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

describe('a disk too full for one more request', () => {
  it('makes /ready answer 503 naming the free space, though an empty file can still be written', async () => {
    // The disk is made "too full" by asking for more room than it has: MAX_REQUEST_MB just over
    // the free space of the data directory's disk (a real full disk needs a mount).
    const dataDir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'cardwright-full-'));
    const { bavail, bsize } = fs.statfsSync(dataDir);
    const freeMb = Math.floor((bavail * bsize) / (1024 * 1024));
    // A gigabyte over: the free space moves while the service starts (other processes write and
    // delete files), and 10 MB over was once not enough.
    const askedMb = freeMb + 1024;
    assert.ok(askedMb <= 100_000, `the test disk has ${freeMb} MB free, more than MAX_REQUEST_MB can ask for`);
    const full = await startService({ DATA_DIR: dataDir, MAX_REQUEST_MB: String(askedMb) });
    try {
      const response = await fetch(`${full.baseUrl}/ready`);
      const body = await response.json();
      assert.equal(response.status, 503, JSON.stringify(body));
      assert.equal(body.status, 'not_ready');
      assert.match(body.storage, /^not writable: only [\d,.]+ MB free in .*; a request may store up to [\d,.]+ MB \(MAX_REQUEST_MB\)$/);
    } finally {
      await full.close();
    }
    // With room for a request, the same disk is ready.
    const roomy = await startService({ DATA_DIR: dataDir, MAX_REQUEST_MB: '1' });
    try {
      assert.equal((await fetch(`${roomy.baseUrl}/ready`)).status, 200);
    } finally {
      await roomy.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a deadline that passes while a document waits for its images', () => {
  it('sends none of the image fetches still queued, for requests and for previews (whose fetches are shared and cached)', async () => {
    const images = await startImageServer();
    const markdown = new MarkdownPool({ threads: 2, cpuLimitMs: 10_000, queueMax: 2 });
    try {
      const remote = new RemoteImageFetcher({ policy: 'allowlist', allowlist: [`127.0.0.1:${images.port}`] });
      const cached = new CachedImageFetcher(remote, { maxBytes: 1_000_000, ttlMs: 60_000, failureTtlMs: 5_000 });
      await markdown.warmUp();
      // Eight images that each take 5 s: four are fetched at once, four wait for their turn.
      const document = (lane: string) => Array.from({ length: 8 }, (_, n) => `![slow ${n}](${images.origin}/slow?${lane}-${n})`).join('\n\n');
      const deadline = AbortSignal.timeout(800);
      const documents = [
        markdown.render(document('requests'), { remoteImages: remote, signal: deadline, lane: 'requests' }),
        markdown.render(document('previews'), { remoteImages: cached, signal: deadline, lane: 'previews' }),
      ];
      for (const answer of documents) await assert.rejects(answer, { name: 'TimeoutError' });
      const atDeadline = images.hits.length;
      assert.ok(atDeadline <= 8, `${atDeadline} fetches before the deadline; four per document may run at once`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.equal(images.hits.length, atDeadline, `${images.hits.length - atDeadline} image fetches were sent after the deadline`);
    } finally {
      await markdown.close();
      await images.close();
    }
  });
});

describe('an image at an IPv6 literal address', () => {
  it('is fetched when its host:port is on the allowlist, written as Markdown or as <img>', async () => {
    const images = await startImageServer('::1');
    try {
      const remoteImages = new RemoteImageFetcher({ policy: 'allowlist', allowlist: [`[::1]:${images.port}`] });
      for (const markdown of [`![red](${images.origin}/red.png)`, `<img alt="red" src="${images.origin}/red.png">`]) {
        const { html, imageFailures } = await renderMarkdown(markdown, { remoteImages });
        assert.deepEqual(imageFailures, [], markdown);
        assert.match(html, /src="data:image\/png;base64,/, markdown);
      }
      assert.deepEqual(images.hits, ['/red.png', '/red.png']);
    } finally {
      await images.close();
    }
  });
});
