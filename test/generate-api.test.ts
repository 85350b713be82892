// POST /api/generate end to end: real HTTP, real Chromium, real files on disk.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodePng, differingFraction, distinctColours, download, isJpeg, isPng, isWebp } from './helpers/images.js';
import { codeExamplesCallingService, runCodeExample, runShellExample, shellExamplesCallingService } from './helpers/shell-examples.js';
import { startService, temporaryDir, testApiKey, type RunningService } from './helpers/service.js';

const longDocument = Array.from({ length: 40 }, (_, i) => `## Section ${i + 1}\n\nA paragraph of text that fills the card, 第${i + 1}段中文内容。`).join('\n\n');

describe('POST /api/generate', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  it('renders the default request as one 880×1172 PNG that is served at its URL', async () => {
    const { status, json } = await service.generate({});
    assert.equal(status, 200);
    assert.equal(json.images.length, 1);
    const [image] = json.images;
    assert.match(image.fileName, /^screenshots\/\d{13}_[0-9a-f]{24}\.png$/);
    assert.equal(image.url, `${service.baseUrl}/${image.fileName}`);
    assert.equal(image.width, 880);
    assert.equal(image.height, 1172);

    const { bytes, response } = await download(image.url);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'image/png');
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.match(response.headers.get('cache-control') ?? '', /max-age=31536000/);
    assert.equal(bytes.length, image.bytes);
    assert.equal(image.size, Math.round((bytes.length / 1024) * 100) / 100, "size is in KB, as MD2Card reports it");
    assert.ok(isPng(bytes));
    const png = await decodePng(bytes);
    assert.deepEqual([png.width, png.height], [880, 1172]);
    assert.ok(distinctColours(png) > 50, 'the card has text and decoration, not a blank page');
  });

  it('gives every card its alt text: what it shows in reading order, code by its language, pictures by their alt (none without); a PNG carries it', async () => {
    const pixel = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const markdown = [
      '# 五个专注习惯 Five habits',
      'Write down **the one task** that matters today.',
      '```ts\nconst focus = () => 25 * 60;\n```',
      '| habit | minutes |\n|---|---|\n| plan | 5 |',
      `![a sunrise over the sea](${pixel})`,
      'Energy: $E = mc^2$',
      // Hard-wrapped as READMEs are: one line of alt text. A hard break starts one; so does a nested list.
      'A paragraph written\nover two lines, then a break  \nand a new line.',
      '- Plan\n  - five minutes',
      '- [x] planned\n- [ ] reviewed',
      // A README's badges: those without alt text are passed over, as a screen reader passes over alt="".
      `${['ci', 'size', 'downloads', 'license', 'chat'].map((name) => `[![](http://127.0.0.1/${name}.svg)](https://example.com/${name})`).join(' ')} [![npm version](http://127.0.0.1/npm.svg)](https://www.npmjs.com/)`,
    ].join('\n\n');
    const { status, json } = await service.generate({ markdown });
    assert.equal(status, 200, JSON.stringify(json));
    const [image] = json.images;
    assert.equal(
      image.alt,
      [
        '五个专注习惯 Five habits',
        'Write down the one task that matters today.',
        'Code (TypeScript).',
        'habit · minutes',
        'plan · 5',
        'a sunrise over the sea',
        'Energy: (formula)',
        'A paragraph written over two lines, then a break',
        'and a new line.',
        'Plan',
        'five minutes',
        '☑ planned',
        '☐ reviewed',
        'npm version',
      ].join('\n'),
    );
    // A card of nothing but pictures without alt text says how many it shows.
    const pictures = await service.generate({ markdown: `![](${pixel}) ![](${pixel})` });
    assert.equal(pictures.status, 200, JSON.stringify(pictures.json));
    assert.equal(pictures.json.images[0].alt, '2 images.');
    // The PNG's own Description (iTXt) says the same.
    const { bytes } = await download(image.url);
    assert.equal(pngText(bytes, 'Description'), image.alt);

    // A real README split into cards: each card has its own share, none longer than 1,000 characters.
    const readme = fs.readFileSync(path.join('node_modules', 'markdown-it', 'README.md'), 'utf8');
    const split = await service.generate({ markdown: readme, splitMode: 'autoSplit' });
    assert.equal(split.status, 200, JSON.stringify(split.json));
    const alts: string[] = split.json.images.map((card: { alt: string }) => card.alt);
    assert.ok(alts.length > 2, `${alts.length} cards`);
    for (const alt of alts) assert.ok(alt.length > 0 && alt.length <= 1000, `an alt text of ${alt.length} characters`);
    assert.match(alts[0]!, /^markdown-it/);
    // Every section heading of the README is read, in the README's order.
    const all = alts.join('\n');
    let from = 0;
    for (const [, heading] of readme.matchAll(/^## (.+)$/gm)) {
      const at = all.indexOf(`\n${heading!.trim()}\n`, from);
      assert.ok(at >= from, `the heading "${heading}" is not read where it stands`);
      from = at;
    }

    // A cover reads as the card shows it: title, author, the tags apart; the signature is left out.
    const cover = await service.generate({ markdown: '---\ntitle: 五个专注习惯\nauthor: 小满\ncover: true\nsignature: true\ntags: [focus, habits]\n---\n\n写下今天最重要的一件事。' });
    assert.equal(cover.status, 200, JSON.stringify(cover.json));
    assert.deepEqual(
      cover.json.images.map((card: { alt: string }) => card.alt),
      ['五个专注习惯\n小满\n#focus #habits', '写下今天最重要的一件事。'],
    );

    // A code block cut by a split goes on, on the next card, in the language it began in.
    const code = Array.from({ length: 60 }, (_, line) => `const step${line} = ${line};`).join('\n');
    const cut = await service.generate({ markdown: `Steps:\n\n\`\`\`ts\n${code}\n\`\`\``, splitMode: 'autoSplit' });
    assert.equal(cut.status, 200, JSON.stringify(cut.json));
    assert.ok(cut.json.images.length > 1, `${cut.json.images.length} cards`);
    assert.deepEqual(
      cut.json.images.map((card: { alt: string }) => card.alt),
      ['Steps:\nCode (TypeScript).', ...cut.json.images.slice(1).map(() => 'Code (TypeScript), continued.')],
    );

    // A PDF has every page's, one after the other.
    const pdf = await service.generate({ markdown: readme, splitMode: 'autoSplit', format: 'pdf' });
    assert.equal(pdf.status, 200);
    assert.equal(pdf.json.images[0].alt, alts.join('\n\n'));
  });

  it('gives every image an unguessable, distinct name', async () => {
    const names = await Promise.all([1, 2, 3].map(async (n) => (await service.generate({ markdown: `# Card ${n}` })).json.images[0].fileName));
    assert.equal(new Set(names).size, 3);
  });

  it('draws dark mode differently from light mode', async () => {
    const markdown = '# Title\n\nSome text.';
    const light = await service.generate({ markdown, themeMode: 'light-mode' });
    const dark = await service.generate({ markdown, themeMode: 'dark-mode' });
    const lightPng = await decodePng((await download(light.json.images[0].url)).bytes);
    const darkPng = await decodePng((await download(dark.json.images[0].url)).bytes);
    assert.ok(differingFraction(lightPng, darkPng) > 0.5);
    // Background of the card body: white paper in light mode, graphite in dark mode.
    const brightness = (png: typeof lightPng) => png.data[(600 * png.width + 440) * 4]!;
    assert.ok(brightness(lightPng) > 240);
    assert.ok(brightness(darkPng) < 60);
  });

  it('grows one noSplit card to fit long content, or clips it to the height with overHiddenMode', async () => {
    const grown = await service.generate({ markdown: longDocument });
    assert.equal(grown.json.images.length, 1);
    assert.ok(grown.json.images[0].height > 1172 * 3, `height ${grown.json.images[0].height}`);
    assert.equal((await decodePng((await download(grown.json.images[0].url)).bytes)).height, grown.json.images[0].height);

    const clipped = await service.generate({ markdown: longDocument, overHiddenMode: true });
    assert.equal(clipped.json.images.length, 1);
    const png = await decodePng((await download(clipped.json.images[0].url)).bytes);
    assert.deepEqual([png.width, png.height], [880, 1172]);
  });

  it('honours width, height and scale', async () => {
    const one = await service.generate({ scale: 1 });
    assert.deepEqual([one.json.images[0].width, one.json.images[0].height], [440, 586]);
    const custom = await service.generate({ width: 500.4, height: 499.6, scale: 3 });
    const png = await decodePng((await download(custom.json.images[0].url)).bytes);
    assert.deepEqual([png.width, png.height], [1500, 1500]);
  });

  it('encodes JPEG and WebP when asked', async () => {
    const jpeg = await service.generate({ format: 'jpeg' });
    assert.match(jpeg.json.images[0].fileName, /\.jpg$/);
    const jpegBytes = await download(jpeg.json.images[0].url);
    assert.ok(isJpeg(jpegBytes.bytes));
    assert.equal(jpegBytes.response.headers.get('content-type'), 'image/jpeg');
    const webp = await service.generate({ format: 'webp' });
    assert.ok(isWebp((await download(webp.json.images[0].url)).bytes));
  });

  it('treats null and "" as "use the default" for text and switch fields', async () => {
    const { status, json } = await service.generate({ markdown: '', theme: null, themeMode: '', splitMode: null, format: null });
    assert.equal(status, 200);
    assert.deepEqual([json.images[0].width, json.images[0].height], [880, 1172]);
  });

  it('reads numbers sent as text, as MD2Card clients send them, and says so; refuses null and other text for a number', async () => {
    const { status, json, headers } = await service.generate({ markdown: '# 600', width: '600', height: '300', scale: '1' });
    assert.equal(status, 200, JSON.stringify(json));
    assert.deepEqual([json.images[0].width, json.images[0].height], [600, 300]);
    assert.deepEqual(json.warnings.map((warning: string) => warning.split(' ')[0]), ['width', 'height', 'scale']);
    assert.match(json.warnings[0], /^width was sent as the string "600" and read as the number 600/);
    assert.match(headers.get('x-cardwright-warnings') ?? '', /width was sent as the string/);

    const preview = await fetch(`${service.baseUrl}/api/preview`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ markdown: '# p', width: '320' }) });
    const previewed = (await preview.json()) as { width: number; warnings: string[] };
    assert.equal(preview.status, 200);
    assert.equal(previewed.width, 320);
    assert.match(previewed.warnings[0]!, /^width was sent as the string "320"/);

    for (const [body, message] of [
      [{ width: 'abc' }, 'width is not accepted: got "abc"; accepted: card width in CSS px, 100–2000.'],
      [{ width: null }, 'width is not accepted: got null; accepted: card width in CSS px, 100–2000.'],
    ] as const) {
      const refused = await service.generate(body);
      assert.deepEqual([refused.status, refused.json.error, refused.json.message], [400, 'invalid_request', message]);
    }
  });

  it('accepts the aliases of the reference service', async () => {
    assert.equal((await service.generate({ theme: 'apple-notes', themeMode: 'dark-mode' })).status, 200);
  });

  it('draws a themeMode the theme does not have in its default mode, and says so', async () => {
    const markdown = '# Title\n\nSome text.';
    const blind = await service.generate({ markdown, themeMode: 'neon-mode', scale: 1 });
    assert.equal(blind.status, 200);
    assert.equal(blind.json.warnings.length, 1);
    assert.match(blind.json.warnings[0], /"neon-mode".*default mode "light-mode".*light-mode, dark-mode/);
    assert.match(blind.headers.get('x-cardwright-warnings') ?? '', /neon-mode.*light-mode/);
    const light = await service.generate({ markdown, themeMode: 'light-mode', scale: 1 });
    assert.equal(light.json.warnings, undefined, 'a request without a problem has no warnings');
    assert.equal(light.headers.get('x-cardwright-warnings'), null);
    const [blindPng, lightPng] = await Promise.all([blind, light].map(async (answer) => await decodePng((await download(answer.json.images[0].url)).bytes)));
    assert.equal(differingFraction(blindPng!, lightPng!), 0, 'drawn exactly as the default mode');
  });

  const badRequests: Array<[string, () => Promise<{ status: number; json: any; headers?: Headers }>, number, string, RegExp]> = [
    ['no API key', () => service.generate({}, { 'x-api-key': '' }), 401, 'unauthorized', /x-api-key/],
    ['a wrong API key', () => service.generate({}, { 'x-api-key': 'wrong-key-wrong-key' }), 401, 'unauthorized', /x-api-key/],
    ['malformed JSON', () => service.generate('{"markdown": '), 400, 'invalid_request', /not valid JSON/],
    ['a JSON array', () => service.generate([1, 2]), 400, 'invalid_request', /must be a JSON object/],
    ['a width that is not a number', () => service.generate({ width: '440px' }), 400, 'invalid_request', /width.*"440px".*100–2000/],
    ['a width out of range', () => service.generate({ width: 5000 }), 400, 'invalid_request', /width.*5000.*100–2000/],
    ['a height out of range', () => service.generate({ height: 10 }), 400, 'invalid_request', /height.*10.*100–4000/],
    ['a scale out of range', () => service.generate({ scale: 8 }), 400, 'invalid_request', /scale.*8.*1–3/],
    ['a boolean given as a string', () => service.generate({ mdxMode: 'yes' }), 400, 'invalid_request', /mdxMode/],
    ['an unknown splitMode', () => service.generate({ splitMode: 'pages' }), 400, 'invalid_request', /splitMode.*"pages".*noSplit, autoSplit, hrSplit/],
    ['an unknown format', () => service.generate({ format: 'gif' }), 400, 'invalid_request', /format.*"gif".*png, jpeg, webp/],
    ['an unknown theme', () => service.generate({ theme: 'no-such-theme' }), 400, 'invalid_request', /no-such-theme.*Accepted: .*plain-notes/],
    ['markdown over 100,000 characters', () => service.generate({ markdown: 'a'.repeat(100_001) }), 400, 'invalid_request', /markdown.*100000/],
    ['a body over 1 MiB', () => service.generate({ markdown: 'a'.repeat(1_100_000) }), 413, 'payload_too_large', /1048576 bytes/],
    [
      'a body that is not JSON',
      async () => {
        const response = await fetch(`${service.baseUrl}/api/generate`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain', 'x-api-key': 'test-key-0123456789abcdef' },
          body: '# hello',
        });
        return { status: response.status, json: await response.json() };
      },
      415,
      'unsupported_media_type',
      /application\/json/,
    ],
    [
      'an unknown route',
      async () => {
        const response = await fetch(`${service.baseUrl}/api/nothing-here`);
        return { status: response.status, json: await response.json() };
      },
      404,
      'not_found',
      /\/api\/nothing-here/,
    ],
  ];
  for (const [name, send, status, label, message] of badRequests) {
    it(`answers ${name} with ${status} ${label}`, async () => {
      const response = await send();
      assert.equal(response.status, status, JSON.stringify(response.json));
      assert.equal(response.json.error, label);
      assert.match(response.json.message, message);
      assert.equal(typeof response.json.requestId, 'string');
    });
  }

  it('gives the same message for a missing and a wrong key', async () => {
    const missing = await service.generate({}, { 'x-api-key': '' });
    const wrong = await service.generate({}, { 'x-api-key': 'nope-nope-nope-nope' });
    assert.equal(missing.json.message, wrong.json.message);
  });

  it('never serves a file from outside the storage directory', async () => {
    const attempts = ['/screenshots/../api-keys.txt', '/screenshots/..%2fapi-keys.txt', '/screenshots/%2e%2e/%2e%2e/etc/passwd', '/screenshots/..%2f', '/screenshots/.health', '/screenshots/a/b.png'];
    for (const attempt of attempts) {
      const response = await fetch(`${service.baseUrl}${attempt}`);
      const text = await response.text();
      assert.notEqual(response.status, 200, attempt);
      assert.doesNotMatch(text, /root:|test-key/);
      // No stored object has such a name: a 404 saying so, not the file server's terse "Forbidden".
      assert.equal(response.status, 404, `${attempt}: ${text}`);
      assert.equal(JSON.parse(text).error, 'not_found', `${attempt}: ${text}`);
      assert.match(JSON.parse(text).message, /^Nothing is at GET \//);
    }
  });

  describe('the shell and code examples of the README and docs/, run as written', () => {
    const examples = shellExamplesCallingService();
    let folder: string;
    before(() => {
      // The files the examples read, as a reader would have them: notes long enough to split.
      folder = temporaryDir('cardwright-examples-');
      fs.writeFileSync(path.join(folder, 'notes.md'), longDocument.split('\n\n').slice(0, 16).join('\n\n'));
    });
    after(() => fs.rmSync(folder, { recursive: true, force: true }));

    it('finds the curl examples', () => {
      assert.ok(examples.length >= 4, examples.map((example) => example.where).join(', '));
    });

    for (const example of examples) {
      it(`${example.where} succeeds`, async () => {
        const result = await runShellExample(example.script, { baseUrl: service.baseUrl, apiKey: testApiKey, cwd: folder });
        const report = `${example.where}\n${example.script}\nexit ${result.code}\n${result.stdout}\n${result.stderr}`;
        assert.equal(result.code, 0, report);
        assert.ok(result.statuses.length > 0, report);
        for (const status of result.statuses) assert.ok(status >= 200 && status < 300, report);
        assert.match(result.stdout, /"success":true/, report);
      });
    }

    const codeExamples = codeExamplesCallingService();
    it('finds the JavaScript and Python examples', () => {
      assert.deepEqual([...new Set(codeExamples.map((example) => example.language))].sort(), ['js', 'python'], codeExamples.map((example) => example.where).join(', '));
    });

    for (const example of codeExamples) {
      it(`${example.where} (${example.language}) prints the URL and size of every card`, async () => {
        const result = await runCodeExample(example, { baseUrl: service.baseUrl, apiKey: testApiKey, cwd: folder });
        const report = `${example.where}\n${example.script}\nexit ${result.code}\n${result.stdout}\n${result.stderr}`;
        assert.equal(result.code, 0, report);
        // Each card's line: its URL on this service, its width and height.
        assert.match(result.stdout, new RegExp(`^${service.baseUrl}/screenshots/\\S+\\.png 880 1172$`, 'm'), report);
      });
    }
  });
});

describe('user content in the render page', () => {
  let service: RunningService;
  let probe: http.Server;
  let probeHits = 0;
  before(async () => {
    probe = http.createServer((_request, response) => {
      probeHits++;
      response.end('hit');
    });
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    service = await startService();
  });
  after(async () => {
    await service.close();
    probe.close();
  });

  it('runs no script and fetches nothing, not even from loopback', async () => {
    const port = (probe.address() as AddressInfo).port;
    const probeUrl = `http://127.0.0.1:${port}`;
    const markdown = [
      '# Safe',
      `<script>document.body.style.background = 'rgb(255,0,0)'</script>`,
      `<img src="${probeUrl}/img.png" onerror="document.body.style.background='rgb(255,0,0)'">`,
      `<p style="background-image: url(${probeUrl}/style.png)">styled</p>`,
      `<div style="background: url('${probeUrl}/div.png')">div</div>`,
      `<a href="javascript:alert(1)">link</a>`,
      `<iframe src="${probeUrl}/frame"></iframe><object data="${probeUrl}/object"></object>`,
      `<link rel="stylesheet" href="${probeUrl}/sheet.css"><meta http-equiv="refresh" content="0;url=${probeUrl}/meta">`,
    ].join('\n\n');
    const { status, json } = await service.generate({ markdown });
    assert.equal(status, 200);
    const png = await decodePng((await download(json.images[0].url)).bytes);
    let red = 0;
    for (let i = 0; i < png.data.length; i += 4) if (png.data[i]! > 240 && png.data[i + 1]! < 20 && png.data[i + 2]! < 20) red++;
    assert.equal(red, 0, 'no script changed the page');
    assert.equal(probeHits, 0, 'the page made no request to loopback');
  });

  it('cannot see the previous request\'s content', async () => {
    const secret = await service.generate({ markdown: '# SECRET-A\n\n'.repeat(30) });
    const next = await service.generate({ markdown: 'short' });
    assert.ok(next.json.images[0].height < secret.json.images[0].height);
    assert.equal(next.json.images[0].height, 1172);
  });
});

describe('request deadline', () => {
  let service: RunningService;
  before(async () => {
    service = await startService({ REQUEST_TIMEOUT_MS: '100' });
  });
  after(async () => service.close());

  it('answers 504 timeout when rendering takes longer than REQUEST_TIMEOUT_MS, and keeps working', async () => {
    const heavy = Array.from({ length: 3000 }, (_, i) => `- item ${i} 第${i}项`).join('\n');
    const { status, json } = await service.generate({ markdown: heavy });
    assert.equal(status, 504);
    assert.equal(json.error, 'timeout');
    const files = await import('node:fs').then((fs) => fs.readdirSync(`${service.dataDir}/screenshots`));
    assert.deepEqual(files, [], 'a timed-out request stores nothing');
  });
});

/** The text of a PNG's iTXt chunk with this keyword, or undefined. */
function pngText(png: Buffer, keyword: string): string | undefined {
  for (let offset = 8; offset < png.length; ) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'iTXt' && data.toString('latin1', 0, keyword.length + 1) === `${keyword}\0`) {
      // keyword NUL, compression flag, method, language NUL, translated keyword NUL, then the text.
      let position = keyword.length + 3;
      position = data.indexOf(0, position) + 1;
      position = data.indexOf(0, position) + 1;
      return data.toString('utf8', position);
    }
    offset += 12 + length;
  }
  return undefined;
}
