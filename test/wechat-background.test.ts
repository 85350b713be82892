// weChatMode (one frameless image for a WeChat official-account article) and `background` (a
// checked CSS colour or gradient replacing the theme's outer background), as a client sees them:
// the image's size, what is drawn at its edges, and the 400s for values that could load anything.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countNear, decodePng, download, pixel } from './helpers/images.js';
import { startService, type RunningService } from './helpers/service.js';

const article = '# 公众号文章\n\n第一段正文，讲一件事。\n\n- 要点一\n- 要点二\n\n> 引用一句话。';

describe('weChatMode', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  it('renders a phone-width image as tall as the content, without the card frame', async () => {
    const { status, json } = await service.generate({ markdown: article, theme: 'pop-art', weChatMode: true });
    assert.equal(status, 200, JSON.stringify(json));
    assert.equal(json.images.length, 1);
    const png = await decodePng((await download(json.images[0].url)).bytes);
    assert.equal(png.width, 750, '375 CSS px at scale 2');
    assert.ok(png.height < 1172, `as tall as the content, not the default card height: ${png.height}`);

    // pop-art's frame is its yellow halftone page and ink-outlined panel; the article is the panel only.
    const framed = await decodePng((await download((await service.generate({ markdown: article, theme: 'pop-art', width: 375 })).json.images[0].url)).bytes);
    const yellow: [number, number, number] = [0xfd, 0xe0, 0x41];
    assert.ok(countNear(framed, yellow, 30) > 10_000, 'the card has its yellow page');
    assert.equal(countNear(png, yellow, 30), 0, 'the article has no yellow page around it');
    assert.deepEqual(pixel(png, 2, 2), pixel(png, png.width - 3, png.height - 3), 'corners are the same plain panel');
  });

  it('keeps a width that is given, and says that a split mode does not apply', async () => {
    const { status, json, headers } = await service.generate({ markdown: `${article}\n\n---\n\nMore.`, weChatMode: true, width: 500, splitMode: 'hrSplit', scale: 1 });
    assert.equal(status, 200);
    assert.equal(json.images.length, 1);
    assert.equal(json.images[0].width, 500);
    assert.match(json.warnings[0], /weChatMode makes one image as tall as the content; splitMode "hrSplit" did not apply/);
    assert.match(headers.get('x-cardwright-warnings') ?? '', /weChatMode/);
  });
});

describe('background', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  it('replaces the theme background with a colour', async () => {
    const { status, json } = await service.generate({ markdown: '# Hi', background: '#123456', scale: 1 });
    assert.equal(status, 200, JSON.stringify(json));
    const png = await decodePng((await download(json.images[0].url)).bytes);
    assert.deepEqual(pixel(png, 5, png.height - 5), [0x12, 0x34, 0x56]);
  });

  it('replaces it with a gradient, on every card of a split', async () => {
    const markdown = Array.from({ length: 30 }, (_, i) => `Paragraph ${i + 1} of a document that needs several cards.`).join('\n\n');
    const { status, json } = await service.generate({ markdown, splitMode: 'autoSplit', background: 'linear-gradient(90deg, rgb(255 0 0), #0000ff)', scale: 1 });
    assert.equal(status, 200, JSON.stringify(json));
    assert.ok(json.images.length > 1);
    for (const image of json.images) {
      const png = await decodePng((await download(image.url)).bytes);
      const [leftRed, , leftBlue] = pixel(png, 2, png.height - 3);
      const [rightRed, , rightBlue] = pixel(png, png.width - 3, png.height - 3);
      assert.ok(leftRed > 240 && leftBlue < 15, `red at the left: ${leftRed},${leftBlue}`);
      assert.ok(rightBlue > 240 && rightRed < 15, `blue at the right: ${rightRed},${rightBlue}`);
    }
  });

  const refused: Array<[string, RegExp]> = [
    ['url(https://example.com/a.png)', /url\(\) is not allowed/],
    ['image-set("a.png" 1x)', /image-set\(\) is not allowed/],
    ['linear-gradient(red, blue), url(x.png)', /url\(\) is not allowed/],
    ['red; background-image: url(x)', /url\(\) is not allowed/],
    ['red; color: blue', /the character ";"/],
    ['var(--pn-bg)', /var\(\) is not allowed/],
    ['-webkit-cross-fade(red, blue, 50%)', /is not allowed|not a colour or gradient function/],
    ['paint(worklet)', /paint\(\) is not allowed/],
    ['red blue', /not a valid CSS colour or gradient/],
    ['notacolour', /"notacolour" is not a colour name or gradient keyword/],
  ];
  for (const [value, message] of refused) {
    it(`refuses ${JSON.stringify(value)} with a 400 that says what is accepted`, async () => {
      const { status, json } = await service.generate({ markdown: '# Hi', background: value, scale: 1 });
      assert.equal(status, 400, JSON.stringify(json));
      assert.equal(json.error, 'invalid_request');
      assert.match(json.message, /^background is not accepted/);
      assert.match(json.message, message);
      assert.match(json.message, /colour|gradient/);
    });
  }
});
