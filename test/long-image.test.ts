// noSplit long images (长图文) beyond one capture: captured in tiles and joined (long-image.ts).
// A client checks the image has the size the answer says, reads as one seamless page, and that
// content beyond the budget, or WebP beyond its limit, is refused with a message that says why.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { download, isJpeg, isPng } from './helpers/images.js';
import { startService, type RunningService } from './helpers/service.js';

/** Sections of heading and Chinese/Latin text; 144 of them are about 40,000 device px tall at 440 × 2. */
const document = (sections: number) =>
  Array.from(
    { length: sections },
    (_, i) =>
      `## 第 ${i + 1} 节 Section ${i + 1}\n\n` +
      `长图文的每一行文字都应该连续清晰，拼接处看不出任何痕迹。Every line of a long image reads as one page, seams and all. 第${i + 1}段。`,
  ).join('\n\n');

/** Rows [top, top + rows) of an image as raw RGB, decoded by libvips without decoding the rest. */
async function rowsOf(bytes: Buffer, top: number, rows: number): Promise<Buffer> {
  const { width } = await sharp(bytes).metadata();
  return sharp(bytes).extract({ left: 0, top, width: width!, height: rows }).removeAlpha().raw().toBuffer();
}

/** Pixels darker than the paper: the ink of text. */
const inkIn = (raw: Buffer) => {
  let ink = 0;
  for (let i = 0; i < raw.length; i += 3) if (raw[i]! + raw[i + 1]! + raw[i + 2]! < 300) ink++;
  return ink;
};

describe('noSplit long images', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  it('makes one PNG of about 40,000 device px whose tile seams are invisible, within the memory bound', async () => {
    await service.generate({ markdown: '# warm up', scale: 1 });
    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const started = performance.now();
    const long = await service.generate({ markdown: document(144) });
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    assert.equal(long.status, 200, JSON.stringify(long.json));
    assert.equal(long.json.images.length, 1);
    const [image] = long.json.images;
    assert.equal(image.width, 880);
    assert.ok(image.height > 36_000 && image.height < 44_000, `height ${image.height}`);
    // README "Long images": the service process grows by less than 150 MB while it joins one.
    const grownMb = (peak - before) / 1e6;
    assert.ok(grownMb < 150, `the process grew by ${grownMb.toFixed(0)} MB`);
    console.log(`# long image ${image.width}×${image.height}: ${seconds.toFixed(1)} s, process grew ${grownMb.toFixed(0)} MB`);

    const { bytes } = await download(image.url);
    assert.ok(isPng(bytes));
    const metadata = await sharp(bytes).metadata();
    assert.deepEqual([metadata.width, metadata.height], [image.width, image.height]);

    // The same document cut short enough for one capture (under 16,384 device px): its first
    // 8,192 rows are laid out identically, so the band across the first seam (device row 8,192)
    // must be the same pixels in both, and a line of text crosses the seam.
    const short = await service.generate({ markdown: document(50) });
    assert.ok(short.json.images[0].height < 16_384 && short.json.images[0].height > 8_300, `short height ${short.json.images[0].height}`);
    const shortBytes = (await download(short.json.images[0].url)).bytes;
    const seam = 8_192;
    const [longBand, shortBand] = await Promise.all([rowsOf(bytes, seam - 40, 80), rowsOf(shortBytes, seam - 40, 80)]);
    assert.ok(longBand.equals(shortBand), 'the 80 rows across the seam are exactly those of a single capture');
    const [aboveSeam, belowSeam] = await Promise.all([rowsOf(bytes, seam - 2, 2), rowsOf(bytes, seam, 2)]);
    assert.ok(inkIn(aboveSeam) > 20 && inkIn(belowSeam) > 20, 'a line of text runs across the seam');
    // No padding at the bottom: the last rows are the card's paper, not an empty grid cell.
    const bottom = await rowsOf(bytes, image.height - 4, 4);
    assert.ok(bottom.some((value) => value > 0), 'the bottom rows are drawn');
  });

  it('makes the same long image as JPEG', async () => {
    const { status, json } = await service.generate({ markdown: document(100), format: 'jpeg' });
    assert.equal(status, 200, JSON.stringify(json));
    const { bytes } = await download(json.images[0].url);
    assert.ok(isJpeg(bytes));
    const metadata = await sharp(bytes).metadata();
    assert.deepEqual([metadata.width, metadata.height], [json.images[0].width, json.images[0].height]);
    assert.ok(json.images[0].height > 16_384, `height ${json.images[0].height}`);
  });

  it('refuses a long WebP with a 400 that suggests PNG, JPEG or a split mode', async () => {
    const { status, json } = await service.generate({ markdown: document(100), format: 'webp' });
    assert.equal(status, 400);
    assert.deepEqual([json.success, json.error], [false, 'invalid_request']);
    assert.match(json.message, /WebP images stop at 16,383 px/);
    assert.match(json.message, /"png" or "jpeg".*"autoSplit" or "hrSplit"/);
  });

  it('refuses content beyond the budget with a 400 saying how tall it is and what to do', async () => {
    const { status, json } = await service.generate({ markdown: document(320) });
    assert.equal(status, 400);
    assert.equal(json.error, 'invalid_request');
    assert.match(json.message, /The content is [\d,]+ px tall at width 440 \([\d,]+ device px at scale 2\)/);
    assert.match(json.message, /at most 32,500 px/);
    assert.match(json.message, /splitMode "autoSplit" or "hrSplit"/);
  });
});
