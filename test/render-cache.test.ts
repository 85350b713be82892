// The render cache: an identical repeated request is answered with the images already stored;
// anything that changes the pixels (format, scale, theme, mode, size, content) renders anew.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { download, isPng } from './helpers/images.js';
import { startService, testApiKey, type RunningService } from './helpers/service.js';

const otherKey = 'second-key-0123456789abcdef';

describe('render cache', () => {
  let service: RunningService;
  before(async () => {
    service = await startService({ API_KEYS: `${testApiKey},${otherKey}` });
  });
  after(async () => service.close());

  it('answers an identical request with the same stored images, without rendering again', async () => {
    const body = { markdown: '# Cached\n\nSame input, same card.' };
    const first = await service.generate(body);
    const second = await service.generate(body);
    assert.equal(first.headers.get('x-cache'), 'miss');
    assert.equal(second.headers.get('x-cache'), 'hit');
    assert.deepEqual(second.json, first.json);
    const { bytes, response } = await download(second.json.images[0].url);
    assert.equal(response.status, 200);
    assert.ok(isPng(bytes));
  });

  it("tells a hit the content's own warnings, as the render that stored it did", async () => {
    // A pie chart whose legend is too wide for its text to stay legible on the card.
    const body = { markdown: '```mermaid\npie\n  "第一季度市场推广与品牌建设的全部线上线下活动费用合计" : 60\n  "其他" : 40\n```', themeMode: 'no-such-mode' };
    const first = await service.generate(body);
    const second = await service.generate(body);
    assert.equal(second.headers.get('x-cache'), 'hit');
    assert.equal(first.json.warnings.length, 2, JSON.stringify(first.json.warnings));
    assert.match(first.json.warnings[1], /^A pie diagram is drawn with text of /);
    assert.deepEqual(second.json.warnings, first.json.warnings);
  });

  it('does not remember a card whose remote image could not be loaded', async () => {
    // Loopback addresses are refused to remote images, so the image is drawn as a placeholder.
    const body = { markdown: '# Placeholder\n\n![a chart](http://127.0.0.1:9/chart.png)' };
    const first = await service.generate(body);
    const second = await service.generate(body);
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(first.headers.get('x-cache'), 'miss');
    assert.equal(second.headers.get('x-cache'), 'miss', 'the same request renders again, so the image may load this time');
    assert.notEqual(second.json.images[0].url, first.json.images[0].url);
  });

  it('treats an alias and an omitted default mode as the same request', async () => {
    const markdown = '# Alias';
    const first = await service.generate({ markdown, theme: 'plain-notes', themeMode: 'light-mode' });
    const second = await service.generate({ markdown, theme: 'apple-notes' });
    assert.equal(second.headers.get('x-cache'), 'hit');
    assert.equal(second.json.images[0].url, first.json.images[0].url);
  });

  it('never crosses formats, scales, font scales, modes, sizes or content', async () => {
    const base = { markdown: '# Variants' };
    const variants = [
      base,
      { ...base, format: 'jpeg' },
      { ...base, scale: 1 },
      { ...base, fontScale: 1.5 },
      { ...base, themeMode: 'dark-mode' },
      { ...base, width: 500 },
      { ...base, overHiddenMode: true },
      { markdown: '# Variants!' },
    ];
    const urls = [];
    for (const body of variants) {
      const { status, json, headers } = await service.generate(body);
      assert.equal(status, 200);
      assert.equal(headers.get('x-cache'), 'miss', JSON.stringify(body));
      urls.push(json.images[0].url);
    }
    assert.equal(new Set(urls).size, variants.length);
  });

  it('keeps each API key\'s renders to itself', async () => {
    const body = { markdown: '# Per key' };
    const mine = await service.generate(body);
    const theirs = await service.generate(body, { 'x-api-key': otherKey });
    assert.equal(theirs.headers.get('x-cache'), 'miss');
    assert.notEqual(theirs.json.images[0].url, mine.json.images[0].url);
  });
});

describe('render cache turned off', () => {
  let service: RunningService;
  before(async () => {
    service = await startService({ RENDER_CACHE: 'off' });
  });
  after(async () => service.close());

  it('renders every request anew', async () => {
    const body = { markdown: '# Not cached' };
    const first = await service.generate(body);
    const second = await service.generate(body);
    assert.equal(second.headers.get('x-cache'), null);
    assert.notEqual(second.json.images[0].url, first.json.images[0].url);
  });
});
