// The preview's work budget without a service: whose budget a request spends (IPv4 address, IPv6
// /64), what a preview is charged, and that every remote image of the parsed document is charged
// before it is fetched, whatever syntax wrote it.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { CardError } from '../src/cards/errors.js';
import type { FetchedImage, ImageSource } from '../src/cards/images/remote-image-fetcher.js';
import { SvgRasterizer } from '../src/cards/images/svg-raster.js';
import { MarkdownPool } from '../src/cards/markdown/markdown-pool.js';
import { normalizeRequest } from '../src/cards/request/normalize.js';
import { clientKey } from '../src/http/client-key.js';
import { capturedCardsCost, markdownCpuCost, PreviewBill, previewCost, PreviewBudget, imageCost } from '../src/http/preview-budget.js';
import { redPng } from './helpers/local-image-server.js';
import { heavyFenceDocument } from './helpers/preview-attacks.js';

describe('clientKey: whose budget a request spends', () => {
  for (const [address, key] of [
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
    ['::1', '0:0:0:0::/64'],
  ] as const) {
    it(`${address} spends the budget of ${key}`, () => assert.equal(clientKey(address), key));
  }

  it('addresses of one /64 share a bucket; the next /64 has its own', async () => {
    const budget = new PreviewBudget({ burst: 3, refillPerSecond: 1 });
    const now = 1_000_000;
    await budget.spend(clientKey('2001:db8:0:1::a'), 2, now);
    await assert.rejects(budget.spend(clientKey('2001:db8:0:1:ffff::b'), 2, now), /Too many previews from this address/);
    await budget.spend(clientKey('2001:db8:0:2::a'), 2, now);
  });
});

describe('what a preview costs', () => {
  it('a document up front: one token, one per 2,000 characters, five more to split', () => {
    assert.equal(previewCost(normalizeRequest({ markdown: 'a'.repeat(4000) })), 3);
    assert.equal(previewCost(normalizeRequest({ markdown: 'a'.repeat(4000), splitMode: 'autoSplit' })), 8);
  });

  it('captured cards by their device pixels: 50 cards of 2,000 × 4,000 at scale 2 cost 1,600 tokens, a card of the default size one', () => {
    assert.equal(capturedCardsCost(50 * 4000 * 8000), 1600);
    assert.equal(Math.round(capturedCardsCost(880 * 1172)), 1);
  });

  it('one preview is never charged more than a full bucket in all: it passes once the bucket is full, and the next waits', async () => {
    const budget = new PreviewBudget({ burst: 50, refillPerSecond: 1 });
    const client = clientKey('198.51.100.2');
    const bill = new PreviewBill(budget, client);
    await bill.charge(6);
    await bill.charge(48);
    await assert.rejects(new PreviewBill(budget, client).charge(6), /Too many previews from this address; retry in 6 s/);
  });

  it('a cost above the burst takes a whole bucket once it is full, and is refused until then', async () => {
    const budget = new PreviewBudget({ burst: 60, refillPerSecond: 20 });
    const client = clientKey('198.51.100.1');
    await budget.spend(client, 800, 0);
    await assert.rejects(budget.spend(client, 800, 1000), (error: Error & { retryAfter?: number }) => /retry in 2 s/.test(error.message));
    await budget.spend(client, 800, 3000);
  });
});

describe('what a preview owes after the fact', () => {
  it('its Markdown CPU time beyond the free 50 ms and what its length paid: 10 ms a token', () => {
    const note = normalizeRequest({ markdown: 'a'.repeat(4000) });
    assert.equal(markdownCpuCost(note, 15), 0, 'a light document owes nothing more');
    assert.equal(markdownCpuCost(note, 60), 0, 'nor one on a worker still warming up');
    assert.equal(markdownCpuCost(note, 370), 30);
  });

  it('is taken even when the bucket is empty, down to minus a bucket, and the next preview waits until it is paid back', async () => {
    const budget = new PreviewBudget({ burst: 60, refillPerSecond: 20 });
    const client = clientKey('198.51.100.3');
    await budget.spend(client, 50, 0);
    await budget.owe(client, 40, 0);
    // 10 − 40 = −30 tokens: a preview of 13 waits for 43 tokens, 3 s at 20 a second.
    await assert.rejects(budget.spend(client, 13, 0), /retry in 3 s/);
    await budget.owe(client, 500, 0);
    // Never more than a bucket in debt: −60, so 13 tokens are back 3.65 s later.
    await assert.rejects(budget.spend(client, 13, 3600), /retry in 1 s/);
    await budget.spend(client, 13, 3700);
  });

  it('a preview owes, with all its charges, no more than a full bucket', async () => {
    const budget = new PreviewBudget({ burst: 60, refillPerSecond: 20 });
    const client = clientKey('198.51.100.4');
    const bill = new PreviewBill(budget, client);
    await bill.charge(20);
    await bill.owe(1000);
    // It owed 40, not 1,000: the bucket is at 0 and refills to 13 in 0.65 s.
    await budget.spend(client, 13, Date.now() + 700);
  });
});

describe('every image the service fetches or draws is charged before', () => {
  const pool = new MarkdownPool({ threads: 1, cpuLimitMs: 10_000, queueMax: 8 });
  after(() => pool.close());

  it('the worker pool measures the CPU time each document takes, which the preview then owes', async () => {
    const { cpuMs } = await pool.render(heavyFenceDocument);
    assert.ok(cpuMs !== undefined && cpuMs > 0, `${cpuMs} ms measured`);
  });

  /** Answers every URL with a small PNG and records what was asked. */
  class RecordingImages implements ImageSource {
    readonly fetched: string[] = [];
    async fetch(source: string): Promise<FetchedImage> {
      this.fetched.push(source);
      return { mimeType: 'image/png', bytes: redPng, width: 200, height: 100 };
    }
  }

  const document = [
    '![inline](http://img.example/1.png)',
    '![reference][r]',
    '<img alt=">" src="http://img.example/3.png">',
    '<picture><source srcset="http://img.example/never.png"><img alt="pic" src="http://img.example/4.png"></picture>',
    '',
    '[r]: http://img.example/2.png',
  ].join('\n\n');

  it('inline, reference-style, raw <img> and the <img> of a <picture>: four charges, four fetches, no <source>', async () => {
    const images = new RecordingImages();
    let charges = 0;
    const { html } = await pool.render(document, { remoteImages: images, beforeImage: () => {
      charges += imageCost;
    } });
    assert.equal(charges, 4);
    assert.deepEqual(images.fetched.sort(), ['http://img.example/1.png', 'http://img.example/2.png', 'http://img.example/3.png', 'http://img.example/4.png']);
    assert.equal(html.match(/data:image\/png/g)?.length, 4);
  });

  it('an SVG in a data: URL is charged before it is drawn, a PNG in one is not (it is only checked)', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#c00"/></svg>').toString('base64');
    const png = redPng.toString('base64');
    const markdown = [`![a](data:image/svg+xml;base64,${svg})`, `<img alt="b" src="data:image/svg+xml;base64,${svg}">`, `![c](data:image/png;base64,${png})`].join('\n\n');
    let charges = 0;
    const { html } = await pool.render(markdown, { remoteImages: new RecordingImages(), svgImages: new SvgRasterizer(), beforeImage: () => {
      charges += imageCost;
    } });
    assert.equal(charges, 2);
    assert.equal(html.match(/data:image\/png/g)?.length, 3, 'both SVGs drawn as PNG, the PNG kept');
  });

  it('a charge that is refused ends the document with that refusal, and nothing more is fetched', async () => {
    const images = new RecordingImages();
    const refusal = new CardError('busy', 'out of budget');
    let charges = 0;
    await assert.rejects(
      pool.render(document, {
        remoteImages: images,
        beforeImage: () => {
          if (++charges > 1) throw refusal;
        },
      }),
      (error) => error === refusal,
    );
    assert.ok(images.fetched.length <= 1, `${images.fetched.length} images were fetched after the refusal`);
  });
});
