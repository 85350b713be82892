// Hostile inputs that reach the browser: a tab that crashes, what one request may cost it (device
// pixels, bytes, drawing time), SVG images, and previews, which have render pages and a budget of
// their own. As in hostile.test.ts, every attack goes over real HTTP to a real service (real
// Chromium) while a second client keeps asking /health (and, where it matters, for a normal card).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import sharp from 'sharp';
import { watchHealth } from './helpers/health-watch.js';
import { assertHealthy, post } from './helpers/hostile.js';
import { countNear, decodePng, download, isWebp, previewImage, previewImageLink } from './helpers/images.js';
import { redSvg, startImageServer, useBombSvg, type LocalImageServer } from './helpers/local-image-server.js';
import { metric } from './helpers/metrics.js';
import { bigDiagramsDocument, heavyFenceDocument, slowFilterSvgsDocument, slowImagesDocument } from './helpers/preview-attacks.js';
import { eventually, listProcesses, processesInGroups } from './helpers/processes.js';
import { startService, testApiKey, type RunningService } from './helpers/service.js';

// A tab that crashes and a large WebP card need the same kind of service (no cache, a long deadline,
// the browser watched by its probe): they share one, which saves a start of the service. The crash
// comes first: it counts the service's retries from zero.
let crashAndWebpService: RunningService;
const crashAndWebpLog: string[] = [];
/** The crash test's deadline: a crash noticed only at the deadline takes this long. */
const crashDeadlineMs = 60_000;
/** The large WebP card's browser is probed often and briefly: a browser busy compressing it for seconds is killed at once. */
const webpProbeTimeoutMs = 2000;

describe('a tab that crashes, and a large WebP card', () => {
  before(async () => {
    crashAndWebpService = await startService(
      {
        REQUEST_TIMEOUT_MS: String(crashDeadlineMs),
        RENDER_CACHE: 'off',
        BROWSER_PROBE_INTERVAL_MS: '500',
        BROWSER_PROBE_TIMEOUT_MS: String(webpProbeTimeoutMs),
        CARD_RENDER_TIMEOUT_MS: '50000',
      },
      { log: (line) => crashAndWebpLog.push(line) },
    );
  });
  after(async () => crashAndWebpService?.close());

  describe('a tab that crashes during a render', () => {
    let service: RunningService;
    const logLines = crashAndWebpLog;
    const deadlineMs = crashDeadlineMs;

    before(() => {
      service = crashAndWebpService;
    });

    it('fails that attempt at once and retries it on a fresh page: the request succeeds long before its deadline', async () => {
      const browserPid = service.app.cards.renderer.browserPid!;
      // Enough cards to keep the page busy for a while, so the crash lands during layout or capture.
      const sections = Array.from({ length: 12 }, (_, i) => `## Part ${i + 1}\n\n<div style="height:700px;background:linear-gradient(135deg,#fde,#def);filter:blur(3px)">${i}</div>`);
      const health = watchHealth(service.baseUrl);
      const started = performance.now();
      const rendering = service.generate({ markdown: sections.join('\n\n'), splitMode: 'autoSplit', scale: 2 });
      assert.ok(await eventually(() => service.app.cards.renderer.activeRenders > 0, 20_000), 'the render started');
      // A tab crash as Chromium has them (out of memory, a renderer bug): its renderer process dies;
      // the browser itself lives on.
      const renderers = processesInGroups([browserPid]).filter((p) => p.cmdline.includes('--type=renderer'));
      assert.ok(renderers.length > 0, 'the pages have renderer processes');
      for (const renderer of renderers) process.kill(renderer.pid, 'SIGKILL');
      const { status, json } = await rendering;
      const ms = performance.now() - started;
      assertHealthy(await health.stop(), 'a tab crash');

      assert.equal(status, 200, JSON.stringify(json));
      assert.ok(json.images.length >= 12, `${json.images.length} cards`);
      assert.ok(ms < deadlineMs / 3, `answered after ${Math.round(ms)} ms; a crash noticed only at the deadline takes ${deadlineMs} ms`);
      assert.equal(await metric(service.baseUrl, 'cardwright_render_retries_total'), 1);
      assert.equal(await metric(service.baseUrl, 'cardwright_browser_restarts_total', { reason: 'crash' }), 0, 'the browser itself did not die');
      assert.ok(logLines.some((line) => line.includes('render page crashed') && line.includes('retrying once on a fresh page')), 'the retry is logged with its cause');
      // The crashed pages are not handed out again: the next request renders at once.
      const next = await service.generate({ markdown: '# After the crash' });
      assert.equal(next.status, 200, JSON.stringify(next.json));
    });
  });

  describe('a large WebP card of fine gradients', () => {
    let service: RunningService;

    before(() => {
      // Probes twice a second, answered within 2 s: a browser busy compressing an image for seconds is killed at once.
      service = crashAndWebpService;
    });

    it('is compressed off the browser: the browser keeps answering, is never killed, and the card arrives', async () => {
      // Chromium took 22 s to compress this card as WebP at scale 2, answering nothing meanwhile: its
      // probe killed it twice and the request ended in a 500 after 40 s. At scale 1 (8 million
      // pixels, twice what the browser may encode) it takes a quarter of that, still well over the
      // probe's 2 s.
      const background = 'repeating-linear-gradient(45deg, red 0 1px, blue 1px 2px), repeating-radial-gradient(circle, green 0 1px, yellow 1px 3px)';
      const health = watchHealth(service.baseUrl);
      const heavy = post(service.baseUrl, '/api/generate', { markdown: '# Noise', width: 2000, height: 4000, scale: 1, format: 'webp', background }, { 'x-api-key': testApiKey });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const normal = await post(service.baseUrl, '/api/generate', { markdown: '# Paid for too' }, { 'x-api-key': testApiKey });
      const { status, json } = await heavy;
      assertHealthy(await health.stop(), 'a large WebP card');

      assert.equal(status, 200, JSON.stringify(json));
      assert.deepEqual([json.images[0].width, json.images[0].height], [2000, 4000]);
      const { bytes } = await download(json.images[0].url);
      const { format, width, height } = await sharp(bytes).metadata();
      assert.deepEqual([format, width, height], ['webp', 2000, 4000]);
      // Both gradients are there: the image is not one flat colour.
      const { channels } = await sharp(bytes).stats();
      assert.ok(channels.slice(0, 3).some((channel) => channel.stdev > 40), 'the card shows its gradients');
      assert.equal(normal.status, 200, JSON.stringify(normal.json));
      assert.equal(await metric(service.baseUrl, 'cardwright_browser_restarts_total', { reason: 'unresponsive' }), 0, 'the browser kept answering its probes');
    });
  });
});

/** CPU time used so far by the renderer processes of a browser, in ms (clock ticks of 10 ms). */
function rendererCpuMs(browserPid: number): number {
  let ticks = 0;
  for (const renderer of processesInGroups([browserPid]).filter((p) => p.cmdline.includes('--type=renderer'))) {
    try {
      const fields = fs.readFileSync(`/proc/${renderer.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited while we looked
    }
  }
  return ticks * 10;
}

const svgDataUrl = (svg: string) => `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;

describe('what one request may cost the browser: pixels, bytes, drawing time, SVG images', () => {
  let service: RunningService;
  let images: LocalImageServer;
  const stepTimeoutMs = 5_000;

  before(async () => {
    images = await startImageServer();
    service = await startService({
      RENDER_CACHE: 'off',
      REMOTE_IMAGES_ALLOWLIST: `127.0.0.1:${images.port}`,
      MAX_REQUEST_MEGAPIXELS: '100',
      MAX_REQUEST_MB: '1',
      CARD_RENDER_TIMEOUT_MS: String(stepTimeoutMs),
      PREVIEW_BUDGET_BURST: '1000000',
      PREVIEW_BUDGET_PER_SECOND: '1000000',
    });
  });
  after(async () => {
    await service?.close();
    await images?.close();
  });

  /**
   * Sends one attack while a second client watches /health and asks for a normal card half a second
   * in; answers the attack's result and asserts the normal client was served.
   */
  async function alongside(route: '/api/generate' | '/api/preview', body: unknown) {
    const health = watchHealth(service.baseUrl);
    const normal = new Promise((resolve) => setTimeout(resolve, 500)).then(() => post(service.baseUrl, '/api/generate', { markdown: '# Normal card' }, { 'x-api-key': testApiKey }));
    try {
      return await post(service.baseUrl, route, body, { 'x-api-key': testApiKey });
    } finally {
      const served = await normal;
      assertHealthy(await health.stop(), `${route} with ${JSON.stringify(body).slice(0, 40)}…`);
      assert.equal(served.status, 200, `the normal client was not served: ${JSON.stringify(served.json)}`);
      assert.ok(served.ms < 20_000, `the normal client waited ${Math.round(served.ms)} ms`);
    }
  }

  it('cards over the pixel budget are refused after layout, before any capture, naming the total and the limit', async () => {
    // 12 cards of 1,000 × 1,000 px at scale 3: 9 million device pixels each.
    const markdown = Array.from({ length: 12 }, (_, i) => `# Card ${i + 1}`).join('\n\n---\n\n');
    const { status, json, ms } = await alongside('/api/generate', { markdown, splitMode: 'hrSplit', width: 1000, height: 1000, scale: 3 });
    assert.equal(status, 400, JSON.stringify(json));
    assert.equal(json.error, 'invalid_request');
    assert.equal(json.message.split('.')[0], 'The 12 cards would total 108 million device pixels at scale 3; the limit is 100 million per request');
    assert.ok(ms < 10_000, `answered after ${Math.round(ms)} ms`);
  });

  it('images over the byte budget are refused as they are captured, naming the size and the limit', async () => {
    // A 600 px noise image (it does not compress) on each of two cards: about 0.9 MB each.
    const markdown = Array.from({ length: 2 }, (_, i) => `![noise ${i}](${images.origin}/noise.png)`).join('\n\n---\n\n');
    const { status, json, ms } = await alongside('/api/generate', { markdown, splitMode: 'hrSplit', width: 600, height: 700, scale: 1 });
    assert.equal(status, 400, JSON.stringify(json));
    assert.equal(json.error, 'invalid_request');
    assert.match(json.message, /^The images reached [\d.]+ MB with card 2 of 2; the limit is 1 MB per request\. Use format "jpeg" or "webp"/);
    assert.ok(ms < 10_000, `answered after ${Math.round(ms)} ms`);
  });

  it('a PDF is counted at its page size whatever the scale, and its bytes against the byte budget', async () => {
    // The 12 cards refused above as images at scale 3 are 12 million pixels of vector pages.
    const twelve = Array.from({ length: 12 }, (_, i) => `# Card ${i + 1}`).join('\n\n---\n\n');
    const printed = await post(service.baseUrl, '/api/generate', { markdown: twelve, splitMode: 'hrSplit', width: 1000, height: 1000, scale: 3, format: 'pdf' }, { 'x-api-key': testApiKey });
    assert.equal(printed.status, 200, JSON.stringify(printed.json));
    assert.equal(printed.json.images.length, 1);
    // One file, twelve cards: the cost counts the cards, as for images.
    assert.equal(printed.json.cost, 12);
    assert.equal(printed.json.images[0].pages, 12);
    // 13 pages of 2,000 × 4,000 CSS px are over 100 million pixels even at scale 1.
    const thirteen = Array.from({ length: 13 }, (_, i) => `# Page ${i + 1}`).join('\n\n---\n\n');
    const large = await post(service.baseUrl, '/api/generate', { markdown: thirteen, splitMode: 'hrSplit', width: 2000, height: 4000, format: 'pdf' }, { 'x-api-key': testApiKey });
    assert.equal(large.status, 400, JSON.stringify(large.json));
    assert.equal(large.json.message.split('.')[0], 'The 13 cards would total 104 million device pixels at scale 1; the limit is 100 million per request');
    // Two noise images that do not compress make a PDF over 1 MB.
    const noisy = Array.from({ length: 2 }, (_, i) => `![noise ${i}](${images.origin}/noise.png)`).join('\n\n---\n\n');
    const heavy = await post(service.baseUrl, '/api/generate', { markdown: noisy, splitMode: 'hrSplit', width: 600, height: 700, scale: 1, format: 'pdf' }, { 'x-api-key': testApiKey });
    assert.equal(heavy.status, 400, JSON.stringify(heavy.json));
    assert.match(heavy.json.message, /^The image is [\d.]+ MB; the limit is 1 MB per request\./);
  });

  it('a card the browser takes too long to draw is cut off at CARD_RENDER_TIMEOUT_MS with a 400 naming heavy effects', async () => {
    const layers = Array.from({ length: 40 }, (_, i) => `repeating-radial-gradient(circle at ${i * 7}% ${i * 3}%, rgba(${i * 6},80,200,.3) 0 ${i + 1}px, transparent ${i + 2}px ${2 * i + 4}px)`);
    // Heavy enough to take well over the step's time on a fast machine too (a blur of 9 px drew within
    // it once); it is cut off at that time whatever it would have cost.
    const markdown = `<div style="height:3900px;background:${layers.join(',')};filter:blur(48px) saturate(3)">heavy</div>`;
    const discardedBefore = await metric(service.baseUrl, 'cardwright_pages_discarded_total');
    const { status, json, ms } = await alongside('/api/generate', { markdown, width: 2000, height: 4000, scale: 2, overHiddenMode: true });
    assert.equal(status, 400, JSON.stringify(json));
    assert.equal(json.error, 'invalid_request');
    assert.match(json.message, /^(Drawing the card|Laying out the content) took longer than 5,000 ms and was stopped\. Heavy CSS effects .* are the likely cause/);
    assert.ok(ms < stepTimeoutMs + 8000, `answered after ${Math.round(ms)} ms`);
    // The page that was still drawing is closed, never cleared and handed to the next request, and
    // its renderer stops drawing: the browser's renderers soon use almost no CPU.
    assert.ok((await metric(service.baseUrl, 'cardwright_pages_discarded_total')) > discardedBefore);
    const browserPid = service.app.cards.renderer.browserPid!;
    const quiet = await eventually(async () => {
      const before = rendererCpuMs(browserPid);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return rendererCpuMs(browserPid) - before < 300;
    }, 15_000);
    assert.ok(quiet, 'a renderer kept drawing after its card was cut off');
  });

  it('an SVG data: image is drawn by the server as PNG: the page never gets an SVG, the card shows it', async () => {
    const { status, json } = await post(service.baseUrl, '/api/preview', { markdown: `![red](${svgDataUrl(redSvg)})` });
    assert.equal(status, 200, JSON.stringify(json));
    const html: string = json.cards[0].html;
    assert.doesNotMatch(html, /svg/i);
    // Shown by address (the preview's own copy), drawn at twice its size.
    const link = new RegExp(`<img src="(${previewImageLink.source})" alt="red" width="100">`).exec(html)?.[1];
    assert.ok(link, html);
    const drawn = await decodePng(await previewImage(service.baseUrl, link));
    assert.deepEqual([drawn.width, drawn.height], [200, 100]);
    const generated = await service.generate({ markdown: `![red](${svgDataUrl(redSvg)})`, scale: 1 });
    assert.equal(generated.status, 200, JSON.stringify(generated.json));
    const card = await decodePng((await download(generated.json.images[0].url)).bytes);
    // Drawn 100 × 50 CSS px (its own size), from a PNG of twice that.
    assert.ok(countNear(card, [230, 20, 20], 30) >= 100 * 50 * 0.9, 'the SVG is drawn on the card at its own size');
  });

  it('a remote SVG is drawn as PNG; one that refers to anything outside itself is refused without a fetch', async () => {
    const { status, json } = await post(service.baseUrl, '/api/preview', {
      markdown: `![remote](${images.origin}/red.svg)\n\n<img alt="outside" src="${images.origin}/external.svg">`,
    });
    assert.equal(status, 200, JSON.stringify(json));
    const html: string = json.cards[0].html;
    assert.doesNotMatch(html, /image\/svg/i);
    assert.match(html, new RegExp(`<img src="${previewImageLink.source}" alt="remote" width="100">`));
    assert.match(html, /image-placeholder[^>]*>outside</);
    assert.ok(images.hits.includes('/external.svg'));
    assert.ok(!images.hits.includes('/inside-svg.png'), 'the SVG loaded an image');
  });

  for (const [name, src] of [
    ['data:', () => svgDataUrl(useBombSvg())],
    ['remote', () => `${images.origin}/bomb.svg`],
    ['data: declared image/png', () => `data:image/png;base64,${Buffer.from(useBombSvg()).toString('base64')}`],
    [
      'nested (an SVG <image> of a bomb)',
      () => svgDataUrl(`<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400"><image width="400" height="400" href="${svgDataUrl(useBombSvg())}"/></svg>`),
    ],
  ] as const) {
    it(`a ${name} SVG <use> bomb is refused at once, drawn as its alt text`, async () => {
      const { status, json, ms } = await alongside('/api/preview', { markdown: `<img alt="bomb" src="${src()}">`, splitMode: 'autoSplit' });
      assert.equal(status, 200, JSON.stringify(json));
      assert.ok(ms < 5000, `answered after ${Math.round(ms)} ms`);
      // A split preview is an image: the bomb became its alt text, so the card is not blank.
      assert.match(json.cards[0].image, previewImageLink);
      assert.ok(isWebp(await previewImage(service.baseUrl, json.cards[0].image)));
    });
  }

  it('an SVG of stacked filters is stopped at 5 s: its drawing process is killed, the image drawn as its alt text', async () => {
    const filters = '<feGaussianBlur stdDeviation="300"/><feMorphology radius="100"/>'.repeat(200);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="2000"><filter id="f">${filters}</filter><rect width="2000" height="2000" filter="url(#f)"/></svg>`;
    const { status, json, ms } = await alongside('/api/preview', { markdown: `<img alt="filters" src="${svgDataUrl(svg)}">` });
    assert.equal(status, 200, json.message);
    assert.match(json.cards[0].html, /image-placeholder[^>]*>filters</);
    assert.ok(ms > 4000 && ms < 5000 + 5000, `answered after ${Math.round(ms)} ms; SVGs may take 5 s`);
    // Unstopped, it draws for minutes.
    assert.equal(listProcesses().filter((p) => p.cmdline.includes('svg-raster-process')).length, 0, 'a drawing process is left');
  });

  it('SVG <use> bombs of any depth and fan-out are answered in bounded time (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 14 }), fc.integer({ min: 2, max: 12 }), async (levels, fanOut) => {
        let body = '<rect id="a0" width="1" height="1"/>';
        for (let i = 1; i <= levels; i++) body += `<g id="a${i}">${`<use href="#a${i - 1}"/>`.repeat(fanOut)}</g>`;
        const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="50" height="50">${body}<use href="#a${levels}"/></svg>`;
        const { status, json, ms } = await post(service.baseUrl, '/api/preview', { markdown: `![x](${svgDataUrl(svg)})` });
        assert.equal(status, 200, JSON.stringify(json));
        assert.ok(ms < 8000, `answered after ${Math.round(ms)} ms`);
        const drawn = previewImageLink.test(json.cards[0].html);
        // Well within the 50,000 drawn elements it is drawn; when the last <use> alone repeats more, refused.
        const repeats = fanOut ** levels;
        if (repeats <= 1000) assert.ok(drawn, `${levels} levels of ${fanOut} were not drawn`);
        if (repeats > 50_000) assert.ok(!drawn, `${levels} levels of ${fanOut} were drawn`);
        assert.doesNotMatch(json.cards[0].html, /image\/svg/);
      }),
      { numRuns: 10 },
    );
  });
});

describe('a preview that leaves its browser unanswering', () => {
  // Frozen at two moments: once its page is open, as a preview whose drawing takes the browser's
  // every cycle leaves it; and while its first page is still opening, right after the web page
  // started it (Playwright then left the opening unsettled for ever once the browser was killed,
  // and the preview waiting for that page got a 504 at its deadline).
  // One service for both: the first moment needs its fresh start (the web page starts the
  // previews' browser), the second finds the browser that replaced the frozen one, its page open.
  let service: RunningService;
  const probeTimeoutMs = 1500;

  before(async () => {
    service = await startService({ RENDER_CONCURRENCY: '1', RENDER_CACHE: 'off', BROWSER_PROBE_INTERVAL_MS: '300', BROWSER_PROBE_TIMEOUT_MS: String(probeTimeoutMs) });
  });
  after(async () => service?.close());

  for (const moment of ['while its first page opens', 'once its page is open'] as const) {
    describe(moment, () => {

      it("takes down only the previews' browser: /api/generate keeps its own and is answered at once throughout", async () => {
        const renderer = service.app.cards.renderer;
        const requestsBrowser = renderer.browserPid!;
        const restartsBefore = await metric(service.baseUrl, 'cardwright_browser_restarts_total', { reason: 'unresponsive' });
        assert.equal((await fetch(`${service.baseUrl}/`)).status, 200, "the web page opens, and with it the previews' browser");
        assert.ok(await eventually(() => renderer.previewBrowserPid !== undefined, 20_000), "the previews' browser started");
        const previewsBrowser = renderer.previewBrowserPid!;
        assert.notEqual(previewsBrowser, requestsBrowser, 'previews have a browser of their own');
        if (moment === 'once its page is open') {
          assert.equal((await post(service.baseUrl, '/api/preview', { markdown: '# Warm' })).status, 200);
          assert.equal((await service.generate({ markdown: '# Before' })).status, 200);
        }

        // A card the browser struggles to capture (stacked gradients on a 2,000×4,000 card) leaves the
        // browser process unanswering for seconds, until its health probe kills it: a stopped process
        // is that browser, at once and for as long as the test needs.
        const health = watchHealth(service.baseUrl);
        process.kill(-previewsBrowser, 'SIGSTOP');
        try {
          const preview = post(service.baseUrl, '/api/preview', { markdown: '# Split\n\ntext', splitMode: 'autoSplit' });
          const started = performance.now();
          // The probe answers within its timeout or kills the browser; a shared browser held every
          // request that long. Generate is watched past the moment the probe gives up.
          while (performance.now() - started < probeTimeoutMs + 2500) {
            const generated = await post(service.baseUrl, '/api/generate', { markdown: `# Paid for ${Math.random()}` }, { 'x-api-key': testApiKey });
            assert.equal(generated.status, 200, JSON.stringify(generated.json));
            assert.ok(generated.ms < 3000, `generate waited ${Math.round(generated.ms)} ms while the previews' browser did not answer`);
          }
          const previewed = await preview;
          assert.equal(previewed.status, 200, JSON.stringify(previewed.json));
          // Served by the replacement soon after the probe gave up, not at the request's deadline.
          assert.ok(previewed.ms < 20_000, `the preview took ${Math.round(previewed.ms)} ms`);
        } finally {
          try {
            process.kill(-previewsBrowser, 'SIGCONT');
          } catch {
            // killed already, as it should be
          }
        }
        assertHealthy(await health.stop(), 'a frozen preview browser');
        assert.equal(renderer.browserPid, requestsBrowser, 'the browser of /api/generate was never replaced');
        assert.notEqual(renderer.previewBrowserPid, previewsBrowser, "the previews' browser was replaced");
        assert.equal(await metric(service.baseUrl, 'cardwright_browser_restarts_total', { reason: 'unresponsive' }), restartsBefore + 1);
      });
    });
  }
});

describe('previews: render pages of their own, and a budget charged by what they cost', () => {
  let service: RunningService;
  let images: LocalImageServer;

  before(async () => {
    images = await startImageServer();
    service = await startService({
      RENDER_CACHE: 'off',
      RENDER_CONCURRENCY: '1',
      PREVIEW_RENDER_CONCURRENCY: '1',
      PREVIEW_QUEUE_MAX: '1',
      // Two Markdown workers, as the service runs: previews may hold all but one.
      MARKDOWN_THREADS: '2',
      // Each test client gives its own address in X-Forwarded-For.
      TRUST_PROXY: 'true',
      REMOTE_IMAGES_ALLOWLIST: `127.0.0.1:${images.port}`,
      // A small refill, so what a test spends is still missing when its next preview comes.
      PREVIEW_BUDGET_BURST: '50',
      PREVIEW_BUDGET_PER_SECOND: '1',
    });
  });
  after(async () => {
    await service?.close();
    await images?.close();
  });

  const from = (address: string) => ({ 'x-forwarded-for': address });

  it('split previews that keep their page busy never hold up /api/generate, which has its page to itself', async () => {
    const layers = Array.from({ length: 30 }, (_, i) => `repeating-radial-gradient(circle at ${i * 7}% ${i * 3}%, rgba(${i * 6},80,200,.3) 0 ${i + 1}px, transparent ${i + 2}px ${2 * i + 4}px)`);
    const heavy = { markdown: `<div style="height:2300px;background:${layers.join(',')};filter:blur(6px)">heavy</div>`, splitMode: 'autoSplit', width: 800, height: 1000, scale: 2 };
    const health = watchHealth(service.baseUrl);
    const previews = [1, 2, 3].map((i) => post(service.baseUrl, '/api/preview', heavy, from(`198.51.100.${i}`)));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const generated = await post(service.baseUrl, '/api/generate', { markdown: '# Paid for' }, { 'x-api-key': testApiKey });
    const generatedAt = performance.now();
    const answers = await Promise.all(previews);
    const previewsDoneAt = performance.now();
    assertHealthy(await health.stop(), 'a flood of split previews');

    assert.equal(generated.status, 200, JSON.stringify(generated.json));
    assert.ok(generated.ms < 10_000, `generate waited ${Math.round(generated.ms)} ms`);
    assert.ok(previewsDoneAt - generatedAt > 100, 'the previews were still rendering when generate was answered');
    // One preview renders, one waits, the third is refused at once: the lane's queue is full.
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [200, 200, 503], answers.map((answer) => String(answer.json.message).slice(0, 200)).join(' | '));
    assert.equal(answers.find((answer) => answer.status === 503)!.json.error, 'overloaded');
  });

  it('SVGs of previews are drawn in turns of their own: a generate request with an SVG never waits behind them', async () => {
    // Each of these takes the full 5 s an SVG may draw for; six of them held every drawing turn of
    // the service for 10 to 15 s.
    const filters = '<feGaussianBlur stdDeviation="300"/><feMorphology radius="100"/>'.repeat(150);
    const slow = (i: number) => `<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="2000"><filter id="f">${filters}</filter><rect width="2000" height="2000" filter="url(#f)"/><desc>${i}</desc></svg>`;
    const markdown = Array.from({ length: 6 }, (_, i) => `<img alt="slow ${i}" src="${svgDataUrl(slow(i))}">`).join('\n');
    // Warm: the first drawing of a service loads what drawing needs.
    assert.equal((await post(service.baseUrl, '/api/generate', { markdown: `![red](${svgDataUrl(redSvg)}) warm` }, { 'x-api-key': testApiKey })).status, 200);
    const hangUp = new AbortController();
    const preview = fetch(`${service.baseUrl}/api/preview`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...from('198.51.100.40') },
      body: JSON.stringify({ markdown }),
      signal: hangUp.signal,
    }).catch(() => undefined);
    try {
      const drawing = () => listProcesses().some((p) => p.cmdline.includes('svg-raster-process'));
      assert.ok(await eventually(drawing, 20_000), "the preview's SVGs are being drawn");
      const generated = await post(service.baseUrl, '/api/generate', { markdown: `![red](${svgDataUrl(redSvg)})` }, { 'x-api-key': testApiKey });
      assert.equal(generated.status, 200, JSON.stringify(generated.json));
      assert.equal(generated.json.warnings, undefined, 'the SVG was drawn');
      assert.ok(generated.ms < 5000, `generate waited ${Math.round(generated.ms)} ms for the previews' SVGs`);
      assert.ok(drawing(), "the preview's SVGs were still being drawn");
    } finally {
      // The preview's client hangs up: its drawings are killed, none is left.
      hangUp.abort();
      await preview;
    }
    assert.ok(await eventually(() => !listProcesses().some((p) => p.cmdline.includes('svg-raster-process')), 10_000), 'a drawing process is left');
  });

  // Fairness: one address sends the same costly preview again and again, never waiting for an answer,
  // while another previews a short note as the web page does (one at a time, at most every 500 ms).
  // Each attack holds a different part of the service: image fetches, the SVG drawing processes, a
  // Markdown worker, the diagram page. The note's p95 stays under the documented 2 s, and the
  // attacker runs out of budget (429). The attacker hangs up on what is unanswered 3 s after it stops.
  const previewAttacks = [
    { name: 'slow remote images', everyMs: 500, markdown: (n: number) => slowImagesDocument(images.origin, (i) => `/late.png?${n}-${i}`) },
    // 20: the first preview must fit this test's bucket of 50 (1 + 1 per 2,000 characters + 1 per
    // image, then its Markdown's CPU), so that its SVGs are drawn; 30 was refused before drawing.
    { name: 'slow-filter SVGs', everyMs: 500, markdown: () => slowFilterSvgsDocument(20) },
    { name: 'a 24 KB fence to highlight', everyMs: 1000, markdown: () => heavyFenceDocument },
    { name: 'nine diagrams of 499 edges', everyMs: 1000, markdown: () => bigDiagramsDocument },
  ];
  for (const [a, attack] of previewAttacks.entries()) {
    it(`one address sending ${attack.name} again and again never holds up another address's previews`, async (t) => {
      const attacker = `198.51.100.${60 + 2 * a}`;
      const other = `198.51.100.${61 + 2 * a}`;
      // 4 s of attack: the attacker is refused within its first 2 s (a full queue or an empty
      // budget), and the note's p95 over some 8 answers is their slowest, as over 12.
      const until = performance.now() + 4000;
      const hangUp = new AbortController();
      const attacks: Promise<number | 'cut'>[] = [];
      let refusal: string | undefined;
      const sending = (async () => {
        for (let n = 0; performance.now() < until; n++) {
          const sent = fetch(`${service.baseUrl}/api/preview`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...from(attacker) },
            body: JSON.stringify({ markdown: attack.markdown(n) }),
            signal: hangUp.signal,
          });
          attacks.push(
            sent.then(
              async (response) => {
                if (response.status !== 200 && !refusal) refusal = (await response.json()).message;
                return response.status;
              },
              () => 'cut' as const,
            ),
          );
          await new Promise((resolve) => setTimeout(resolve, attack.everyMs));
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const answers: { status: number; ms: number; message: unknown }[] = [];
      while (performance.now() < until) {
        const pace = new Promise((resolve) => setTimeout(resolve, 500));
        const { status, ms, json } = await post(service.baseUrl, '/api/preview', { markdown: `A short note, number ${answers.length}.` }, from(other));
        answers.push({ status, ms, message: json.message });
        await pace;
      }
      await sending;
      setTimeout(() => hangUp.abort(), 3000);
      const attackStatuses = await Promise.all(attacks);

      assert.deepEqual(
        answers.map((answer) => answer.status),
        answers.map(() => 200),
        answers.map((answer) => String(answer.message)).join(' | '),
      );
      const latencies = answers.map((answer) => answer.ms).sort((x, y) => x - y);
      const p95 = latencies[Math.ceil(latencies.length * 0.95) - 1]!;
      t.diagnostic(`short notes: p95 ${Math.round(p95)} ms of ${latencies.length}; the attacker's answers: ${attackStatuses.join(' ')} (${refusal})`);
      assert.ok(p95 < 2000, `the short notes' p95 latency was ${Math.round(p95)} ms (all: ${latencies.map(Math.round).join(', ')})`);
      assert.ok(attackStatuses.includes(429), `the attacker was never refused: ${attackStatuses.join(' ')}`);
    });
  }

  /** A document of `count` remote images, each a different URL, written as reference-style images. */
  const referenceImages = (count: number, tag: string) =>
    `${Array.from({ length: count }, (_, i) => `![${i}][r${i}]`).join(' ')}\n\n${Array.from({ length: count }, (_, i) => `[r${i}]: ${images.origin}/red.png?${tag}-${i}`).join('\n')}`;

  it('reference-style images are charged one by one before they are fetched, and the /64 of an IPv6 client shares one budget', async () => {
    const hitsBefore = images.hits.length;
    const first = await post(service.baseUrl, '/api/preview', { markdown: referenceImages(45, 'a') }, from('2001:db8:0:7::1'));
    assert.equal(first.status, 200, first.json.message);
    assert.equal(first.json.cards[0].html.match(new RegExp(previewImageLink, 'g'))?.length, 45);
    // Another address of the same /64: the same budget, which 45 more images overdraw.
    const second = await post(service.baseUrl, '/api/preview', { markdown: referenceImages(45, 'b') }, from('2001:db8:0:7:ffff::2'));
    assert.equal(second.status, 429, second.json.message);
    assert.equal(second.json.error, 'rate_limited');
    assert.match(second.json.message, /Too many previews from this address; retry in \d+ s/);
    const fetched = images.hits.length - hitsBefore;
    assert.ok(fetched <= 45 + 5, `${fetched} images were fetched; the budget pays for about 48`);
    // The next /64 has a budget of its own.
    const third = await post(service.baseUrl, '/api/preview', { markdown: referenceImages(3, 'c') }, from('2001:db8:0:8::1'));
    assert.equal(third.status, 200, third.json.message);
  });

  it('a noSplit preview whose tables the browser fits is charged for that layout; one without tables is not', async () => {
    const table = `| a | b |\n| - | - |\n| ${'wide '.repeat(40)} | 1 |`;
    const answers = async (markdown: string, address: string) => {
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await post(service.baseUrl, '/api/preview', { markdown, splitMode: 'noSplit' }, from(address))).status);
      return statuses;
    };
    // 10 × (1 + 5) tokens overdraw a bucket of 50; 10 × 1 do not.
    assert.ok((await answers(table, '203.0.113.20')).includes(429), 'ten table previews passed');
    assert.deepEqual(await answers('# No table', '203.0.113.21'), Array(10).fill(200));
  });

  it('a split preview of large cards is charged by their pixels: the same preview again from that client waits', async () => {
    const markdown = Array.from({ length: 3 }, (_, i) => `# Card ${i + 1}`).join('\n\n---\n\n');
    // 3 cards of 2,000 × 2,000 px at scale 2: 48 million device pixels, 48 tokens on top of 6: more
    // than the burst of 50, so it takes a full bucket, and the same preview again waits for one.
    const body = { markdown, splitMode: 'hrSplit', width: 2000, height: 2000, scale: 2 };
    const big = await post(service.baseUrl, '/api/preview', body, from('203.0.113.9'));
    assert.equal(big.status, 200, big.json.message);
    assert.equal(big.json.cards.length, 3);
    const again = await post(service.baseUrl, '/api/preview', body, from('203.0.113.9'));
    assert.equal(again.status, 429, again.json.message);
    // Another client is not affected, and small previews stay cheap.
    assert.equal((await post(service.baseUrl, '/api/preview', { markdown: '# small' }, from('203.0.113.10'))).status, 200);
  });
});
