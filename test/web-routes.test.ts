// The web page's server side over real HTTP: the page and its security headers, the preview
// endpoint (same pipeline as the images, no key, bounded work), theme thumbnails and fonts.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, openPage } from './helpers/browser.js';
import { startImageServer, type LocalImageServer } from './helpers/local-image-server.js';
import { isPng, previewImageLink } from './helpers/images.js';
import { startService, type RunningService } from './helpers/service.js';

describe('web page routes', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  const preview = (body: unknown) =>
    fetch(`${service.baseUrl}/api/preview`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('serves the page with a policy that allows only the service itself', async () => {
    const response = await fetch(`${service.baseUrl}/`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/html/);
    const policy = response.headers.get('content-security-policy') ?? '';
    assert.match(policy, /default-src 'self'/);
    assert.match(policy, /script-src 'self'/);
    assert.match(await response.text(), /<textarea id="markdown"/);
    for (const asset of ['/assets/app.js', '/assets/app.css', '/fonts/faces.css']) {
      assert.equal((await fetch(`${service.baseUrl}${asset}`)).status, 200, asset);
    }
  });

  it('serves the renderer shell document as the preview frame, scriptless, compressed and revalidated', async () => {
    const response = await fetch(`${service.baseUrl}/preview/frame`);
    assert.equal(response.status, 200);
    // Images: data: URLs, and the previews' own images by their path alone.
    const host = new URL(service.baseUrl).host;
    assert.match(response.headers.get('content-security-policy') ?? '', new RegExp(`default-src 'none'.*font-src 'self'; img-src data: ${host}/api/preview/images/;`));
    assert.equal(response.headers.get('content-encoding'), 'gzip');
    const html = await response.text();
    assert.match(html, /<div id="cards"><\/div>/);
    assert.match(html, /\.card-plain-notes/);
    const again = await fetch(`${service.baseUrl}/preview/frame`, { headers: { 'if-none-match': response.headers.get('etag')! } });
    assert.equal(again.status, 304);

    // The fonts the frame refers to are served, and nothing outside the font packages is.
    const fontUrl = /url\((\/fonts\/[^)]+\.woff2)\)/.exec(html)?.[1];
    assert.ok(fontUrl);
    const font = await fetch(`${service.baseUrl}${fontUrl}`);
    assert.equal(font.status, 200);
    assert.equal(font.headers.get('content-type'), 'font/woff2');
    assert.equal((await fetch(`${service.baseUrl}/fonts/noto-sans-sc/files/..%2F..%2F..%2Fpackage.json`)).status, 404);
    assert.equal((await fetch(`${service.baseUrl}/fonts/unknown/files/x.woff2`)).status, 404);
  });

  it('previews without a key: the card markup of the same pipeline, sanitized', async () => {
    const response = await preview({
      markdown: '# Hi <img src=x onerror=alert(1)>\n\n<script>alert(1)</script>\n\n- one',
      themeMode: 'dark-mode',
      width: 500,
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.match(response.headers.get('server-timing') ?? '', /preview;dur=\d/);
    const json = (await response.json()) as { cards: { html: string }[]; theme: string; themeMode: string; width: number; height: number };
    assert.equal(json.cards.length, 1);
    assert.equal(json.theme, 'plain-notes');
    assert.equal(json.themeMode, 'dark-mode');
    assert.deepEqual([json.width, json.height], [500, 586]);
    const html = json.cards[0]!.html;
    assert.match(html, /^<div class="card markdown-body card-plain-notes dark-mode" style="--card-width:500px;--card-height:586px">/);
    assert.match(html, /<h1 data-text="Hi[^"]*" dir="auto">/);
    assert.match(html, /<li data-index="1">one<\/li>/);
    assert.doesNotMatch(html, /<script|onerror|alert\(1\)<\/script>/);
  });

  it('answers a bad preview request as the API does: 400 naming the field and what is accepted', async () => {
    const tooWide = await preview({ width: 5000 });
    assert.equal(tooWide.status, 400);
    const body = (await tooWide.json()) as { error: string; message: string };
    assert.equal(body.error, 'invalid_request');
    assert.match(body.message, /^width is not accepted: got number 5000/);

    // A mode the theme does not have is previewed in the default mode, as Generate draws it.
    const blindMode = await preview({ theme: 'plain-notes', themeMode: 'neon-mode' });
    assert.equal(blindMode.status, 200);
    const blind = (await blindMode.json()) as { themeMode: string; warnings: string[] };
    assert.equal(blind.themeMode, 'light-mode');
    assert.match(blind.warnings[0]!, /"neon-mode".*light-mode, dark-mode/);

    const notJson = await fetch(`${service.baseUrl}/api/preview`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' });
    assert.equal(notJson.status, 415);
  });

  it('renders a thumbnail per theme and mode once, then revalidates it by ETag', async () => {
    const dark = await fetch(`${service.baseUrl}/api/themes/plain-notes/thumbnail.webp?mode=dark-mode`);
    assert.equal(dark.status, 200);
    assert.equal(dark.headers.get('content-type'), 'image/webp');
    const bytes = Buffer.from(await dark.arrayBuffer());
    assert.equal(bytes.toString('latin1', 8, 12), 'WEBP');
    const light = Buffer.from(await (await fetch(`${service.baseUrl}/api/themes/plain-notes/thumbnail.webp`)).arrayBuffer());
    assert.ok(!light.equals(bytes), 'each mode has its own thumbnail');
    const cached = await fetch(`${service.baseUrl}/api/themes/plain-notes/thumbnail.webp?mode=dark-mode`, {
      headers: { 'if-none-match': dark.headers.get('etag')! },
    });
    assert.equal(cached.status, 304);
    const unknown = await fetch(`${service.baseUrl}/api/themes/no-such-theme/thumbnail.webp`);
    assert.equal(unknown.status, 400);
    assert.match(((await unknown.json()) as { message: string }).message, /theme "no-such-theme" is not a known theme/);
  });

  it('keeps a card\'s inline styles from fetching anything: the frame policy blocks it in the browser', async () => {
    let hits = 0;
    const bait = http.createServer((_request, response) => {
      hits += 1;
      response.end();
    });
    await new Promise<void>((resolve) => bait.listen(0, '127.0.0.1', resolve));
    const baitUrl = `http://127.0.0.1:${(bait.address() as AddressInfo).port}/leak.png`;
    const browser = await launchBrowser();
    try {
      const { page } = await openPage(browser, `${service.baseUrl}/`);
      const blocked: string[] = [];
      page.on('requestfailed', (request) => blocked.push(`${request.url()} ${request.failure()?.errorText}`));
      // Beside it, an SVG the service draws: the frame loads it from the preview's own address.
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="60" height="30"><rect width="60" height="30" fill="#c00"/></svg>').toString('base64');
      await page.locator('#markdown').fill(`# Styled\n\n<span style="display:block;height:40px;background-image:url(${baitUrl})">x</span>\n\n![red](data:image/svg+xml;base64,${svg})`);
      await page.waitForFunction(() => {
        const frame = document.getElementById('preview-frame') as HTMLIFrameElement;
        const image = frame.contentDocument?.querySelector<HTMLImageElement>('.card-content-inner img[alt="red"]');
        return frame.contentDocument?.querySelector('.card-content-inner span[style]') !== null && image?.complete && image.naturalWidth > 0;
      });
      const image = await page.evaluate(() => {
        const frame = document.getElementById('preview-frame') as HTMLIFrameElement;
        const shown = frame.contentDocument!.querySelector<HTMLImageElement>('.card-content-inner img[alt="red"]')!;
        return { src: shown.getAttribute('src'), size: [shown.naturalWidth, shown.naturalHeight] };
      });
      assert.match(image.src ?? '', new RegExp(`^${previewImageLink.source}$`));
      assert.deepEqual(image.size, [120, 60], 'the frame loaded the drawn PNG (twice the SVG size)');
      // The sanitizer already drops url() from inline styles; should one ever get through, the
      // frame policy refuses it. Either way the bait server sees nothing.
      const style = await page.evaluate(() => {
        const frame = document.getElementById('preview-frame') as HTMLIFrameElement;
        return frame.contentDocument?.querySelector('.card-content-inner span[style]')?.getAttribute('style');
      });
      assert.doesNotMatch(style ?? '', /url\(/);
      for (let wait = 0; wait < 10; wait++) await page.waitForTimeout(50);
      assert.ok(blocked.every((failure) => failure === `${baitUrl} csp`), blocked.join(', '));
      assert.equal(hits, 0);
    } finally {
      await browser.close();
      bait.close();
    }
  });

  it("serves a preview's images by address for ten minutes, and says so when one is gone", async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#06c"/></svg>').toString('base64');
    const response = await preview({ markdown: `![blue](data:image/svg+xml;base64,${svg})` });
    assert.equal(response.status, 200);
    const { cards } = (await response.json()) as { cards: { html: string }[] };
    const link = previewImageLink.exec(cards[0]!.html)?.[0];
    assert.ok(link, cards[0]!.html);
    const image = await fetch(`${service.baseUrl}${link}`);
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('content-type'), 'image/png');
    assert.equal(image.headers.get('cache-control'), 'private, max-age=600, immutable');
    assert.ok(isPng(Buffer.from(await image.arrayBuffer())));
    // The same image in the next keystroke's preview has the same address (the browser keeps it).
    const again = (await (await preview({ markdown: `![blue](data:image/svg+xml;base64,${svg})\n\nMore text.` })).json()) as { cards: { html: string }[] };
    assert.equal(previewImageLink.exec(again.cards[0]!.html)?.[0], link);
    const gone = await fetch(`${service.baseUrl}/api/preview/images/${'0'.repeat(40)}`);
    assert.equal(gone.status, 404);
    assert.deepEqual(Object.keys((await gone.json()) as object).slice(0, 3), ['success', 'error', 'message']);
    const malformed = await fetch(`${service.baseUrl}/api/preview/images/..%2Fx`);
    assert.equal(malformed.status, 400);
  });

  it('bounds the work one address may ask for: huge documents in a row get 429 with Retry-After', async () => {
    const huge = { markdown: 'word '.repeat(19_999) };
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let attempt = 0; attempt < 4 && !limited; attempt++) {
      const response = await preview(huge);
      statuses.push(response.status);
      if (response.status === 429) limited = response;
      else await response.arrayBuffer();
    }
    assert.ok(limited, `statuses ${statuses.join(', ')}`);
    assert.equal(statuses[0], 200);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    const body = (await limited.json()) as { error: string; message: string };
    assert.equal(body.error, 'rate_limited');
    assert.match(body.message, /Too many previews/);

    // Without TRUST_PROXY a client cannot claim another address to get a fresh budget.
    const spoofed = await fetch(`${service.baseUrl}/api/preview`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.23' },
      body: JSON.stringify(huge),
    });
    assert.equal(spoofed.status, 429);
  });
});

/**
 * One service for the two suites below: it trusts the loopback proxy (TRUST_PROXY) and fetches
 * public remote images with the test's image server allow-listed. The proxy setting decides whose
 * budget a preview spends, the remote-image rules what the service fetches; neither changes what
 * the other's tests see (the proxied clients have budgets of their own, the image previews come
 * from loopback itself), and a service start of its own would cost some 8 s of CPU.
 */
describe('a service behind a reverse proxy, with remote images allowed', () => {
  let service: RunningService;
  let allowed: LocalImageServer;
  let trap: LocalImageServer;
  before(async () => {
    allowed = await startImageServer();
    trap = await startImageServer();
    service = await startService({ TRUST_PROXY: '127.0.0.1', REMOTE_IMAGES: 'public', REMOTE_IMAGES_ALLOWLIST: `127.0.0.1:${allowed.port}` });
  });
  after(async () => {
    await service.close();
    await Promise.all([allowed.close(), trap.close()]);
  });

  describe('web page routes behind a reverse proxy (TRUST_PROXY)', () => {
    const previewFrom = (client: string, body: unknown) =>
      fetch(`${service.baseUrl}/api/preview`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
        body: JSON.stringify(body),
      });

    it('gives each client named by the trusted proxy its own preview budget', async () => {
      const huge = { markdown: 'word '.repeat(19_999) };
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 4 && statuses.at(-1) !== 429; attempt++) {
        const response = await previewFrom('203.0.113.7', huge);
        statuses.push(response.status);
        await response.arrayBuffer();
      }
      assert.equal(statuses.at(-1), 429, `statuses ${statuses.join(', ')}`);
      // Another client behind the same proxy still has its whole budget.
      const other = await previewFrom('203.0.113.8', huge);
      assert.equal(other.status, 200);
      await other.arrayBuffer();
    });
  });

  describe('remote images in the preview', () => {
    const previewHtml = async (markdown: string) => {
      const response = await fetch(`${service.baseUrl}/api/preview`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ markdown }),
      });
      assert.equal(response.status, 200);
      return ((await response.json()) as { cards: { html: string }[] }).cards[0]!.html;
    };

    it('shows a remote image as Generate draws it, fetched once for many previews', async () => {
      const markdown = `# Picture\n\n![red](${allowed.origin}/red.png)`;
      for (let typed = 0; typed < 5; typed++) {
        const html = await previewHtml(`${markdown}\n\nTyping ${typed}`);
        assert.match(html, new RegExp(`<img src="${previewImageLink.source}" alt="red"`));
        assert.doesNotMatch(html, /image-placeholder/);
      }
      assert.deepEqual(allowed.hits.filter((hit) => hit === '/red.png'), ['/red.png'], 'the image is fetched once');
    });

    it('does not ask again at once for an image that failed: a placeholder until a short while has passed', async () => {
      for (let typed = 0; typed < 3; typed++) {
        const html = await previewHtml(`![gone](${allowed.origin}/gone.png)\n\nTyping ${typed}`);
        assert.match(html, /<span class="image-placeholder" role="img" aria-label="gone">gone<\/span>/);
      }
      assert.deepEqual(allowed.hits.filter((hit) => hit === '/gone.png'), ['/gone.png']);
    });

    it('keeps the SSRF guard: an address Generate refuses is a placeholder in the preview too', async () => {
      const html = await previewHtml(`![secret](http://127.0.0.1:${trap.port}/red.png)`);
      assert.match(html, /<span class="image-placeholder" role="img" aria-label="secret">secret<\/span>/);
      assert.deepEqual(trap.hits, []);
    });
  });
});
