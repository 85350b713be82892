// The `watermark` field (docs/api.md#watermark) as requests give it: the shorthand text, the object
// with its defaults, the front matter key, the bounds refused with a message naming the part, the
// render cache key, and the markup each card carries. No browser: the drawn cards are checked in
// test/creator.test.ts and test/cover-api.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import sharp from 'sharp';
import { CardError } from '../src/cards/errors.js';
import { RenderCache } from '../src/cards/render-cache.js';
import { cardMarkup } from '../src/cards/render/card-markup.js';
import { watermarkHtml } from '../src/cards/render/watermark-markup.js';
import { checkRequest } from '../src/cards/request/check.js';
import { normalizeCoverRequest } from '../src/cards/request/normalize-cover.js';
import type { Watermark } from '../src/cards/request/watermark.js';
import { withPlainTypes } from '../src/mcp/tool-schema.js';
import { GenerateBody, limits } from '../src/cards/request/schema.js';
import type { Theme } from '../src/cards/themes/theme-file.js';

const png = async (width: number, height: number) =>
  `data:image/png;base64,${(await sharp({ create: { width, height, channels: 3, background: '#e0245e' } }).png().toBuffer()).toString('base64')}`;
const logo = await png(40, 20);

/** The message of the invalid_request `body` is refused with. */
function refusal(body: unknown): string {
  try {
    checkRequest(body);
  } catch (error) {
    assert.ok(error instanceof CardError && error.kind === 'invalid_request', String(error));
    return error.message;
  }
  assert.fail(`${JSON.stringify(body).slice(0, 80)} was accepted`);
}

describe('the watermark field', () => {
  it('reads a text as {text} and fills in the defaults; tiled is fainter', () => {
    assert.deepEqual(checkRequest({ watermark: ' @xiaoman ' }).request.watermark, { text: '@xiaoman', position: 'bottom-right', opacity: 0.35, size: 14 });
    assert.deepEqual(checkRequest({ watermark: { text: '@a', position: 'tiled' } }).request.watermark, { text: '@a', position: 'tiled', opacity: 0.15, size: 14 });
    assert.deepEqual(checkRequest({ watermark: { image: logo, position: 'top-left', opacity: 0.6, size: 20 } }).request.watermark, {
      image: logo,
      position: 'top-left',
      opacity: 0.6,
      size: 20,
    });
  });

  it('means no watermark for null, "", "  " and {}', () => {
    for (const watermark of [null, '', '  ', {}]) assert.equal('watermark' in checkRequest({ watermark }).request, false, JSON.stringify(watermark));
  });

  it('refuses what it cannot draw with a 400 naming the part and its bound', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ text: '@a', opacity: 5 }, /^watermark\.opacity is not accepted: got number 5; accepted: 0\.05–1/],
      [{ text: '@a', opacity: 0 }, /^watermark\.opacity is not accepted: got number 0/],
      [{ text: '@a', size: 200 }, /^watermark\.size is not accepted: got number 200; accepted: .*8–72/],
      [{ text: '@a', position: 'middle' }, /^watermark\.position is not accepted: got "middle"; accepted: bottom-right, bottom-left, top-right, top-left, center, tiled/],
      [{ text: 'x'.repeat(41) }, /^watermark\.text is not accepted: got "x{41}"; accepted: .*at most 40 characters/],
      ['x'.repeat(41), /^watermark is not accepted: got "x{41}"; accepted: .*a text of at most 40 characters/],
      [{ txt: '@a' }, /^watermark has no field "txt"/],
      [{ position: 'tiled' }, /neither a text nor an image/],
      [{ image: 'ftp://example.com/logo.png' }, /^watermark\.image is not accepted: .*data:image\/\(png\|jpeg\|gif\|webp\);base64.*or the http\(s\) address/],
      [{ image: 'https://[' }, /^watermark\.image is not accepted: "https:\/\/\[" is not a valid http\(s\) address/],
      [{ image: 'data:image/svg+xml;base64,PHN2Zy8+' }, /^watermark\.image is not accepted/],
      [{ image: `data:image/png;base64,${Buffer.from('not an image at all').toString('base64')}` }, /watermark\.image is not accepted: its bytes are not a PNG, JPEG, GIF or WebP image/],
      [42, /^watermark is not accepted: got number 42/],
    ];
    for (const [watermark, message] of cases) assert.match(refusal({ watermark }), message, JSON.stringify(watermark).slice(0, 60));
  });

  it('refuses an image larger than a logo may be', async () => {
    assert.match(refusal({ watermark: { image: await png(2400, 10) } }), /it is 2400×10 pixels; at most 2000×2000/);
  });

  it('is read from the front matter, where the body wins, and refused there with the line named', () => {
    const markdown = '---\ntitle: Day one\nwatermark:\n  text: "@fm"\n  position: top-left\n---\n# Hi';
    assert.deepEqual(checkRequest({ markdown }).request.watermark, { text: '@fm', position: 'top-left', opacity: 0.35, size: 14 });
    assert.equal(checkRequest({ markdown: '---\nwatermark: "@short"\n---\n# Hi' }).request.watermark?.text, '@short');
    assert.equal(checkRequest({ markdown, watermark: '@body' }).request.watermark?.text, '@body');
    assert.match(refusal({ markdown: '---\nwatermark: {text: a, opacity: 2}\n---\n# Hi' }), /^The front matter at line 2, key "watermark": watermark\.opacity is not accepted: got number 2/);
  });

  it('is part of the render cache key', () => {
    const cache = new RenderCache({ maxEntries: 10, maxBytes: 1e6, ttlMs: 60_000, rendererVersion: 'test' });
    const key = (body: object) => cache.keyOf(checkRequest(body).request, 'scope');
    assert.notEqual(key({ watermark: '@a' }), key({}));
    assert.notEqual(key({ watermark: '@a' }), key({ watermark: '@b' }));
    assert.notEqual(key({ watermark: '@a' }), key({ watermark: { text: '@a', position: 'tiled' } }));
    // The shorthand and the object it stands for are one card.
    assert.equal(key({ watermark: '@a' }), key({ watermark: { text: '@a', position: 'bottom-right', opacity: 0.35 } }));
  });

  it('answers any value, in the body or the front matter, with a watermark or a 400, never a throw of another kind', () => {
    const hostileText = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 60 }),
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.constantFrom('</span><script>alert(1)</script>', '\u202emark\u202c', 'مرحبا @أحمد', '👩🏽‍💻'.repeat(12), '\u0000\u0007\u001b[31m', 'x'.repeat(70_000)),
    );
    const hostileImage = fc.oneof(
      fc.constantFrom(logo, 'data:image/png;base64,', 'data:image/png;base64,AAAA', `data:image/png;base64,${'A'.repeat(70_000)}`, 'data:image/svg+xml;base64,PHN2Zy8+', 'javascript:alert(1)'),
      fc.base64String({ maxLength: 200 }).map((body) => `data:image/png;base64,${body}`),
    );
    const hostileNumber = fc.oneof(fc.double(), fc.constantFrom(Number.NaN, '0.5', null, true, [], {}));
    const watermark = fc.oneof(
      hostileText,
      fc.record(
        { text: fc.oneof(hostileText, fc.anything()), image: fc.oneof(hostileImage, fc.anything()), position: fc.oneof(fc.constantFrom('tiled', 'center', 'middle'), fc.anything()), opacity: hostileNumber, size: hostileNumber },
        { requiredKeys: [] },
      ),
      fc.anything(),
    );
    // The front matter gets each value as YAML flow (JSON is YAML) and as a quoted or bare scalar.
    const asFrontMatter = (value: unknown) => {
      const flow = `watermark: ${JSON.stringify(value) ?? '~'}`;
      return typeof value === 'string' ? fc.constantFrom(flow, `watermark: ${value}`) : fc.constant(flow);
    };
    const body = fc.oneof(
      watermark.map((value) => ({ watermark: value })),
      watermark.chain(asFrontMatter).map((line) => ({ markdown: `---\n${line}\n---\n# Hi` })),
    );
    fc.assert(
      fc.property(body, (given) => {
        let drawn: Watermark | undefined;
        try {
          drawn = checkRequest(given).request.watermark;
        } catch (error) {
          assert.ok(error instanceof CardError && error.kind === 'invalid_request', String(error));
          // A front matter of two 70,000-character values makes a document over the Markdown bound,
          // which is refused for that, with its own message.
          const tooLong = 'markdown' in given && given.markdown.length > limits.markdownMaxLength;
          assert.match(error.message, tooLong ? /^markdown is not accepted: got a string of [\d,]+ characters/ : /watermark|front matter/i);
          return;
        }
        // What is accepted is drawable: its text is never markup.
        if (drawn?.text) assert.doesNotMatch(watermarkHtml(drawn), /<script|<\/span><script/);
      }),
      { numRuns: 100 },
    );
  });

  it('is taken by the cover endpoint', () => {
    const request = normalizeCoverRequest({ text: 'Title', watermark: '@a' });
    assert.equal(request.watermark?.text, '@a');
  });

  it('is one plain schema for MCP clients: an object, a text or null', () => {
    const { watermark } = withPlainTypes(JSON.parse(JSON.stringify(GenerateBody))).properties as Record<string, any>;
    assert.deepEqual(watermark.type, ['object', 'string', 'null']);
    assert.equal(watermark.anyOf, undefined);
    assert.equal(watermark.maxLength, 40);
    assert.deepEqual(Object.keys(watermark.properties), ['text', 'image', 'position', 'opacity', 'size']);
  });
});

describe('the watermark markup', () => {
  const theme = { id: 'plain-notes', className: 'card-plain-notes' } as Theme;
  const card = (watermark: unknown) =>
    cardMarkup({ theme, width: 440, height: 586, fixedHeight: true, contentHtml: '<p>Text</p>', watermark: checkRequest({ watermark }).request.watermark });

  it('puts the mark in the content area after the content, escaped, with its opacity and size', () => {
    const html = card({ text: '<b>@a</b>', image: logo, position: 'top-right', opacity: 0.5, size: 18 });
    assert.match(
      html,
      /<section class="card-content"><div class="card-content-inner"><p>Text<\/p><\/div><div class="card-watermark watermark-top-right" aria-hidden="true" style="--watermark-opacity:0.5;--watermark-size:18px"><span class="watermark-mark"><img class="watermark-image" src="data:image\/png;base64,[^"]+" alt=""><span class="watermark-text" dir="auto">&lt;b&gt;@a&lt;\/b&gt;<\/span><\/span><\/div><\/section>/,
    );
    assert.doesNotMatch(card(null), /watermark/);
  });

  it('tiles a pattern wide enough for the text and the logo at its own aspect ratio', () => {
    const html = card({ text: '@xiaoman', image: logo, position: 'tiled', size: 10 });
    assert.match(html, /<div class="card-watermark watermark-tiled" aria-hidden="true" style="[^"]+"><svg class="watermark-tiles"><pattern /);
    const tileWidth = Number(/<pattern [^>]*width="([\d.]+)"/.exec(html)![1]);
    // A 40×20 logo 20 px tall is 40 px wide; then the gap, eight characters and room between marks.
    assert.match(html, /<image href="data:image\/png;base64,[^"]+" x="0" y="[\d.]+" width="40" height="20"\/>/);
    assert.ok(tileWidth > 40 + 8 * 10 * 0.6, `the tile (${tileWidth} px) holds the mark`);
    assert.match(html, /<text x="44" y="[\d.]+" dominant-baseline="central">@xiaoman<\/text>/);
  });
});
