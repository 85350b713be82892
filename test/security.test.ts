// Security suite: nothing an author writes may run, leave the card, or make the server reach into
// its own network. XSS vectors go through the real pipeline; SSRF vectors go through the real
// service and the real guard against real servers on 127.0.0.1 that count every hit.
import assert from 'node:assert/strict';
import type { Element, Root, RootContent } from 'hast';
import { fromHtml } from 'hast-util-from-html';
import http from 'node:http';
import type net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { CallbackAddresses, CallbackRefused } from '../src/jobs/callback-address.js';
import { WebhookSender } from '../src/jobs/webhook.js';
import { loadConfig } from '../src/config.js';
import { HostAllowlist, isPublicAddress } from '../src/cards/images/address-policy.js';
import { RemoteImageFetcher, RemoteImageRefused } from '../src/cards/images/remote-image-fetcher.js';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import { countNear } from './helpers/images.js';
import { startImageServer, type LocalImageServer } from './helpers/local-image-server.js';
import { installLoopbackTripwire, type LoopbackTripwire } from './helpers/loopback-only.js';
import { renderCard } from './helpers/rendered-card.js';
import { startService, type RunningService } from './helpers/service.js';

type HastNode = Root | RootContent | Element;

const xssVectors: [string, string][] = [
  ['script element', '<script>alert(1)</script>'],
  ['mixed-case script', '<ScRiPt>alert(1)</sCrIpT>'],
  ['img onerror', '<img src=x onerror=alert(1)>'],
  ['IMG with javascript: src', '<IMG SRC="javascript:alert(1)">'],
  ['svg onload', '<svg onload=alert(1)><circle r="5"/></svg>'],
  ['details ontoggle', '<details open ontoggle=alert(1)><summary>x</summary></details>'],
  ['body onload', '<body onload=alert(1)>'],
  ['Markdown javascript: link', '[click](javascript:alert(1))'],
  ['Markdown javascript: image', '![x](javascript:alert(1))'],
  ['HTML javascript: link', '<a href="javascript:alert(1)">x</a>'],
  ['mixed-case javascript: link', '<a href="JaVaScRiPt:alert(1)">x</a>'],
  ['decimal entities', '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>'],
  ['hex entities and &colon;', '<a href="&#x6A;avascript&colon;alert(1)">x</a>'],
  ['tab inside the scheme', '<a href="java\tscript:alert(1)">x</a>'],
  ['vbscript: link', '<a href="vbscript:msgbox(1)">x</a>'],
  ['data:text/html link', '<a href="data:text/html,<script>alert(1)</script>">x</a>'],
  ['iframe', '<iframe src="https://example.com"></iframe>'],
  ['object', '<object data="x.swf"></object>'],
  ['embed', '<embed src="x.swf">'],
  ['form', '<form action="https://example.com"><input name="a"><button>go</button></form>'],
  ['base', '<base href="https://example.com/">'],
  ['meta refresh', '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">'],
  ['link stylesheet', '<link rel="stylesheet" href="https://example.com/x.css">'],
  ['style element', '<style>body{background:url(https://example.com/x)}</style>'],
  ['style url()', '<div style="background:url(javascript:alert(1))">x</div>'],
  ['style expression()', '<div style="width: expression(alert(1))">x</div>'],
  ['style escaped url', '<div style="background-image: u\\rl(https://example.com/x)">x</div>'],
  ['style behavior', '<p style="behavior: url(x.htc)">x</p>'],
  ['style @import', '<p style="@import \'https://example.com/x.css\'">x</p>'],
  ['mutation XSS', '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>'],
  ['noscript trick', '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>'],
];

const forbiddenElements = new Set(['script', 'iframe', 'frame', 'object', 'embed', 'form', 'input', 'button', 'base', 'meta', 'link', 'style', 'svg', 'math', 'noscript', 'body', 'html', 'head']);
const dangerousValue = /javascript:|vbscript:|data:text\/html|url\s*\(|expression\s*\(|behavior|@import/i;

/**
 * What survived, read as a browser would: elements and attributes of the parsed output. Text is
 * text, whatever it says (an escaped "<img onerror>" in a paragraph is harmless words).
 */
function survivors(html: string): string[] {
  const found: string[] = [];
  const walk = (node: HastNode) => {
    if (node.type === 'element') {
      if (forbiddenElements.has(node.tagName) && !(node.tagName === 'input' && node.properties.type === 'checkbox')) found.push(`<${node.tagName}>`);
      for (const [name, value] of Object.entries(node.properties)) {
        if (/^on/i.test(name)) found.push(`${node.tagName}[${name}]`);
        if (dangerousValue.test(String(value))) found.push(`${node.tagName}[${name}=${String(value)}]`);
      }
    }
    if ('children' in node) for (const child of node.children) walk(child as HastNode);
  };
  walk(fromHtml(html, { fragment: true }) as HastNode);
  return found;
}

describe('raw HTML sanitizing (XSS)', () => {
  for (const [name, vector] of xssVectors) {
    it(`removes ${name}`, async () => {
      const { html } = await renderMarkdown(`Before\n\n${vector}\n\nAfter`);
      assert.deepEqual(survivors(html), [], html);
      assert.match(html, /Before[\s\S]*After/);
    });
  }

  it('keeps what authors use for looks: style colours, mark, u, span, small, center', async () => {
    const { html } = await renderMarkdown('<span style="color: #c00; font-weight: 700">red</span> <mark>m</mark> <u>u</u> <small>s</small>\n\n<center>c</center>');
    assert.match(html, /<span style="color: #c00; font-weight: 700">red<\/span>/);
    assert.match(html, /<mark>m<\/mark> <u>u<\/u> <small>s<\/small>/);
    assert.match(html, /<center>c<\/center>/);
  });

  it('keeps the harmless declarations of a style that also tries something', async () => {
    const { html } = await renderMarkdown('<p style="color: red; background: url(https://example.com/x); font-size: 20px">x</p>');
    assert.match(html, /<p style="color: red; font-size: 20px" dir="auto">x<\/p>/);
  });
});

let tripwire: LoopbackTripwire;
before(() => {
  tripwire = installLoopbackTripwire();
});
after(() => {
  tripwire.remove();
  // Every private and public address above was refused by the guard, before any connection.
  assert.deepEqual(tripwire.attempts, []);
});

describe('remote images (SSRF) through the service', () => {
  let service: RunningService;
  let allowed: LocalImageServer;
  let trap: LocalImageServer;
  let trapV6: LocalImageServer | undefined;

  before(async () => {
    allowed = await startImageServer();
    trap = await startImageServer();
    trapV6 = await startImageServer('::1').catch(() => undefined);
    // Public mode, with one loopback server trusted through the allowlist (host AND port).
    service = await startService({ REMOTE_IMAGES: 'public', REMOTE_IMAGES_ALLOWLIST: `127.0.0.1:${allowed.port}` });
  });
  after(async () => {
    await service.close();
    await Promise.all([allowed.close(), trap.close(), trapV6?.close()]);
  });

  it('fetches an image from the allowlisted server and draws it', async () => {
    const png = await renderCard(service, { markdown: `![red](${allowed.origin}/red.png)` }, 'security-allowed-image');
    assert.ok(countNear(png, [230, 20, 20], 10) > 10_000);
    assert.ok(allowed.hits.includes('/red.png'));
  });

  const vectors = (): [string, string][] => {
    const t = trap.port;
    return [
      ['127.0.0.1', `http://127.0.0.1:${t}/red.png`],
      ['localhost (a name that resolves to loopback)', `http://localhost:${t}/red.png`],
      ['localhost. (trailing dot)', `http://localhost.:${t}/red.png`],
      ['[::1]', `http://[::1]:${trapV6?.port ?? t}/red.png`],
      ['[::ffff:127.0.0.1]', `http://[::ffff:127.0.0.1]:${t}/red.png`],
      ['2130706433 (decimal)', `http://2130706433:${t}/red.png`],
      ['0x7f.1 (hex, short)', `http://0x7f.1:${t}/red.png`],
      ['127.1', `http://127.1:${t}/red.png`],
      ['0.0.0.0', `http://0.0.0.0:${t}/red.png`],
      ['169.254.169.254 (cloud metadata)', 'http://169.254.169.254/latest/meta-data/'],
      ['10.0.0.1 (private)', 'http://10.0.0.1/x.png'],
      ['100.64.0.1 (CGNAT)', 'http://100.64.0.1/x.png'],
      ['[fe80::1] (link-local)', 'http://[fe80::1]/x.png'],
      ['redirect to loopback from the allowlisted server', `${allowed.origin}/redirect?to=${encodeURIComponent(`http://127.0.0.1:${t}/red.png`)}`],
      ['redirect to localhost from the allowlisted server', `${allowed.origin}/redirect?to=${encodeURIComponent(`http://localhost:${t}/red.png`)}`],
      ['file:///etc/passwd', 'file:///etc/passwd'],
    ];
  };

  it('refuses every SSRF vector: the card renders with a placeholder and the trap servers get no request', async () => {
    for (const [name, url] of vectors()) {
      // The vector as a Markdown image and as an HTML img, on one card: drawn, either would be red
      // on it. At scale 1, a quarter of the pixels to capture; the red image would still cover
      // some 20,000 of them.
      const markdown = `![${name}](${url})\n\n<img src="${url}" alt="${name}">`;
      const png = await renderCard(service, { markdown, scale: 1 }, `security-ssrf-${name.replace(/\W+/g, '-')}`);
      assert.equal(countNear(png, [230, 20, 20], 10), 0, `${name}: no red image drawn`);
      assert.deepEqual(trap.hits, [], `${name}: the trap server was reached`);
      assert.deepEqual(trapV6?.hits ?? [], [], `${name}: the IPv6 trap server was reached`);
    }
  });

  it('draws the placeholder with the alt text for a refused image', async () => {
    const { html } = await renderMarkdown(`![secret](http://127.0.0.1:${trap.port}/red.png)`, {
      remoteImages: service.app.config && new RemoteImageFetcher({ policy: 'public', allowlist: [`127.0.0.1:${allowed.port}`] }),
    });
    assert.match(html, /<span class="image-placeholder" role="img" aria-label="secret">secret<\/span>/);
    assert.deepEqual(trap.hits, []);
  });
});

describe('the image guard', () => {
  let server: LocalImageServer;
  let trap: LocalImageServer;
  before(async () => {
    server = await startImageServer();
    trap = await startImageServer();
  });
  after(async () => Promise.all([server.close(), trap.close()]));

  const refusal = async (fetcher: RemoteImageFetcher, url: string, signal?: AbortSignal): Promise<Error> => {
    try {
      await fetcher.fetch(url, signal);
    } catch (error) {
      return error as Error;
    }
    assert.fail(`${url} was fetched`);
  };

  it('classifies addresses: only global unicast is public', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) assert.equal(isPublicAddress(address), true, address);
    const refused = [
      '127.0.0.1', '127.255.0.1', '0.0.0.0', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1',
      '224.0.0.1', '255.255.255.255', '192.0.2.1', '198.18.0.1', '240.0.0.1', '::', '::1', 'fe80::1', 'fc00::1', 'fd12::1',
      '::ffff:127.0.0.1', '::ffff:8.8.8.8', '64:ff9b::7f00:1', '2002:7f00:1::1', 'ff02::1', 'not-an-ip',
    ];
    for (const address of refused) assert.equal(isPublicAddress(address), false, address);
  });

  it('matches allowlist entries by host, host:port and *.domain', () => {
    const list = new HostAllowlist(['cdn.example.com', '127.0.0.1:8080', '*.images.example', '[::1]:9000']);
    assert.ok(list.matches(new URL('https://cdn.example.com/a.png')));
    assert.ok(list.matches(new URL('http://CDN.example.com:81/a.png')));
    assert.ok(list.matches(new URL('http://127.0.0.1:8080/a.png')));
    assert.ok(!list.matches(new URL('http://127.0.0.1:8081/a.png')));
    assert.ok(!list.matches(new URL('http://127.0.0.1/a.png')));
    assert.ok(list.matches(new URL('https://a.b.images.example/x')));
    assert.ok(!list.matches(new URL('https://images.example/x')));
    assert.ok(!list.matches(new URL('https://evilcdn.example.com/x')));
    assert.ok(list.matches(new URL('http://[::1]:9000/x')));
  });

  it('rejects malformed allowlist entries at start-up', () => {
    assert.throws(() => loadConfig({ REMOTE_IMAGES: 'allowlist', REMOTE_IMAGES_ALLOWLIST: 'https://cdn.example.com/path' }), /REMOTE_IMAGES_ALLOWLIST entry/);
    assert.throws(() => loadConfig({ REMOTE_IMAGES: 'allowlist' }), /REMOTE_IMAGES=allowlist needs REMOTE_IMAGES_ALLOWLIST/);
    assert.throws(() => loadConfig({ REMOTE_IMAGES: 'sometimes' }), /REMOTE_IMAGES must be one of off, public, allowlist/);
    assert.throws(() => loadConfig({ TRUST_PROXY: 'nginx' }), /TRUST_PROXY must be true, false, a hop count \(1–10\) or proxy addresses such as .*"nginx" is none of these/);
    assert.throws(() => loadConfig({ TRUST_PROXY: '10.0.0.0/40' }), /"10\.0\.0\.0\/40" is none of these/);
    assert.throws(() => loadConfig({ TRUST_PROXY: '0' }), /TRUST_PROXY as a hop count must be from 1 to 10; got "0"/);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.5, 172.16.0.0/12,::1' }).trustProxy, ['10.0.0.5', '172.16.0.0/12', '::1']);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.equal(loadConfig({}).trustProxy, false);
  });

  it('checks the addresses a name resolves to, and connects to exactly those', async () => {
    const asked: string[] = [];
    const resolve = async (host: string) => {
      asked.push(host);
      return ['127.0.0.1'];
    };
    // A trusted name resolving to loopback: fetched over a real connection to the checked address.
    const trusting = new RemoteImageFetcher({ policy: 'allowlist', allowlist: [`images.test:${server.port}`], resolve });
    const image = await trusting.fetch(`http://images.test:${server.port}/red.png`);
    assert.equal(image.mimeType, 'image/png');
    assert.deepEqual([image.width, image.height], [200, 100]);
    assert.deepEqual(asked, ['images.test']);
    assert.deepEqual(server.hits.slice(-1), ['/red.png']);

    // An untrusted name resolving to loopback: refused after DNS, before any connection.
    const publicOnly = new RemoteImageFetcher({ policy: 'public', resolve });
    const error = await refusal(publicOnly, `http://rebound.test:${trap.port}/red.png`);
    assert.ok(error instanceof RemoteImageRefused);
    assert.match(error.message, /rebound.test resolves to 127.0.0.1, not a public address/);
    assert.deepEqual(trap.hits, []);
  });

  it('refuses a name if any of its addresses is not public', async () => {
    // Loopback first: were the check broken, the connection would go to the trap, not elsewhere.
    const fetcher = new RemoteImageFetcher({ policy: 'public', resolve: async () => ['127.0.0.1', '8.8.8.8'] });
    const error = await refusal(fetcher, `http://mixed.test:${trap.port}/x.png`);
    assert.match(error.message, /resolves to 127.0.0.1/);
    assert.deepEqual(trap.hits, []);
  });

  it('refuses everything when off, and unlisted hosts in allowlist mode without even resolving them', async () => {
    let resolved = 0;
    const resolve = async () => {
      resolved++;
      return ['127.0.0.1'];
    };
    const off = new RemoteImageFetcher({ policy: 'off', resolve });
    assert.match((await refusal(off, `${server.origin}/red.png`)).message, /REMOTE_IMAGES=off/);
    const listed = new RemoteImageFetcher({ policy: 'allowlist', allowlist: ['cdn.example.com'], resolve });
    assert.match((await refusal(listed, `http://other.test:${trap.port}/red.png`)).message, /not on REMOTE_IMAGES_ALLOWLIST/);
    assert.equal(resolved, 0);
    assert.deepEqual(trap.hits, []);
  });

  it('re-checks every redirect and stops after three', async () => {
    const fetcher = new RemoteImageFetcher({ policy: 'allowlist', allowlist: [`127.0.0.1:${server.port}`] });
    const hop = (to: string) => `${server.origin}/redirect?to=${encodeURIComponent(to)}`;
    const three = hop(hop(hop(`${server.origin}/red.png`)));
    assert.equal((await fetcher.fetch(three)).mimeType, 'image/png');
    const four = hop(three);
    assert.match((await refusal(fetcher, four)).message, /more than 3 redirects/);
    assert.match((await refusal(fetcher, hop(`http://127.0.0.1:${trap.port}/red.png`))).message, /not on REMOTE_IMAGES_ALLOWLIST/);
    assert.match((await refusal(fetcher, hop('file:///etc/passwd'))).message, /file: URLs are not fetched/);
    assert.deepEqual(trap.hits, []);
  });

  it('accepts only image/* responses whose bytes are an image', async () => {
    const fetcher = new RemoteImageFetcher({ policy: 'allowlist', allowlist: [`127.0.0.1:${server.port}`] });
    assert.match((await refusal(fetcher, `${server.origin}/html`)).message, /content-type "text\/html" is not image/);
    assert.match((await refusal(fetcher, `${server.origin}/fake.png`)).message, /not an image/);
    assert.match((await refusal(fetcher, `${server.origin}/missing`)).message, /HTTP 404/);
  });

  it('caps the size and the time of a fetch, and stops when the request is cancelled', async () => {
    const small = new RemoteImageFetcher({ policy: 'allowlist', allowlist: [`127.0.0.1:${server.port}`], maxBytes: 100 });
    assert.match((await refusal(small, `${server.origin}/red.png`)).message, /over the 100-byte limit/);

    const quick = new RemoteImageFetcher({ policy: 'allowlist', allowlist: [`127.0.0.1:${server.port}`], timeoutMs: 200 });
    const timedOut = await refusal(quick, `${server.origin}/slow`);
    assert.equal(timedOut.name, 'TimeoutError');

    const cancelled = new AbortController();
    setTimeout(() => cancelled.abort(new Error('request deadline passed')), 100);
    const aborted = await refusal(new RemoteImageFetcher({ policy: 'allowlist', allowlist: [`127.0.0.1:${server.port}`] }), `${server.origin}/slow`, cancelled.signal);
    assert.equal(aborted.message, 'request deadline passed');
  });
});

describe('the job callback guard', () => {
  const secret = 'callback-secret-0123456789';
  let receiver: http.Server;
  let port: number;
  let hits = 0;
  before(async () => {
    receiver = http.createServer((_request, response) => {
      hits += 1;
      response.end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    port = (receiver.address() as net.AddressInfo).port;
  });
  after(() => receiver.close());

  // A public-looking name that resolves to loopback: what DNS rebinding makes of a callback host.
  const rebinding = async () => ['127.0.0.1'];
  const delivered = async (addresses: CallbackAddresses, url: string) => {
    const before = hits;
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    await new WebhookSender({ secret, allowlist: [], attempts: 1, retryMs: 10 }, addresses, log).deliver(url, 'job-1', { state: 'done' }, 1).catch(() => undefined);
    return { reached: hits > before, log: lines.join('\n') };
  };

  it('refuses at submission a callback whose name resolves to a private address, unless allow-listed', async () => {
    const guard = new CallbackAddresses([], rebinding);
    await assert.rejects(guard.check(`http://hooks.example:${port}/`), (error: Error) => error instanceof CallbackRefused && /127\.0\.0\.1, not a public address/.test(error.message));
    await assert.rejects(guard.check('http://[::1]/'), CallbackRefused);
    await assert.rejects(guard.check('http://user:pw@8.8.8.8/'), CallbackRefused);
    const allowed = new CallbackAddresses([`hooks.example:${port}`], rebinding);
    assert.equal((await allowed.check(`http://hooks.example:${port}/`)).port, String(port));
  });

  it('checks the address again when it delivers, and connects only to what it checked', async () => {
    const refused = await delivered(new CallbackAddresses([], rebinding), `http://hooks.example:${port}/hook`);
    assert.equal(refused.reached, false, 'a name that now resolves to loopback is never connected to');
    assert.match(refused.log, /resolves to 127\.0\.0\.1, not a public address/);
    const allowed = await delivered(new CallbackAddresses([`hooks.example:${port}`], rebinding), `http://hooks.example:${port}/hook`);
    assert.equal(allowed.reached, true);
    assert.match(allowed.log, /delivered/);
  });
});
