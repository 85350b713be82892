// POST /api/generate/cover end to end, as MD2Card's cover clients call it: a title and keywords in,
// `count` stored cover designs out, in the card answer's shape and behind the same API key.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { countNear, decodePng, differingFraction, download, type DecodedPng } from './helpers/images.js';
import { startService, testApiKey, type RunningService } from './helpers/service.js';
import { coverLayout } from '../src/cards/cover/cover.js';
import { coverDesigns } from '../src/cards/cover/cover-designs.js';
import { fitCover, smallestDesignFit } from '../src/cards/cover/fit-cover.js';
import { cardMarkup } from '../src/cards/render/card-markup.js';
import { renderCards } from '../src/cards/render/render-cards.js';
import type { CoverRequest } from '../src/cards/request/cover-schema.js';
import { normalizeCoverRequest } from '../src/cards/request/normalize-cover.js';

/** plain-notes' highlighter yellow (--pn-mark) over white paper: how a keyword is marked. */
const highlighter: [number, number, number] = [254, 226, 119];

describe('POST /api/generate/cover', () => {
  let service: RunningService;
  const cover = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${service.baseUrl}/api/generate/cover`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': testApiKey, ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as any };
  };
  const pngsOf = async (json: { images: Array<{ url: string }> }) =>
    Promise.all(json.images.map(async (image) => await decodePng((await download(image.url)).bytes)));

  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  it('makes three different designs of one title, with the keywords marked, stored like cards', async () => {
    const { status, json } = await cover({ text: '如何让OpenClaw真的能干活\n3分钟看懂 | 实用技巧', keywords: 'OpenClaw', count: 3 });
    assert.equal(status, 200, JSON.stringify(json));
    assert.equal(json.success, true);
    assert.equal(json.cost, 3);
    assert.equal(json.images.length, 3);
    for (const image of json.images) {
      assert.match(image.fileName, /^screenshots\/\d{13}_[0-9a-f]{24}\.png$/);
      assert.deepEqual([image.width, image.height], [880, 1172]);
      assert.equal(typeof image.size, 'number');
    }
    const pngs = await pngsOf(json);
    // Kept in the temporary folder for a person to look at.
    await Promise.all(json.images.map(async (image: { url: string }, index: number) => fs.writeFileSync(`/tmp/cardwright-cover-${index + 1}.png`, (await download(image.url)).bytes)));
    for (const [a, b] of [[0, 1], [0, 2], [1, 2]] as const) {
      assert.ok(differingFraction(pngs[a]!, pngs[b]!) > 0.02, `designs ${a + 1} and ${b + 1} differ`);
    }
    for (const [index, png] of pngs.entries()) assert.ok(countNear(png, highlighter, 12) > 1_000, `design ${index + 1} marks the keyword`);

    const plain = await cover({ text: '如何让OpenClaw真的能干活', count: 1 });
    assert.equal(plain.json.images.length, 1, 'count defaults to 1');
    const [unmarked] = await pngsOf(plain.json);
    assert.ok(countNear(unmarked!, highlighter, 12) < 50, 'without keywords nothing is marked');
  });

  it('fits a design too full for its card: title, keywords, subtitle and every tag stay on the card, in every theme', async () => {
    // Three long keywords made the stacked design's band half the card: its subtitle faded out at
    // the foot and its other five tags were cut.
    const requests: CoverRequest[] = [
      {
        text: 'How I organise a whole year of reading notes, highlights and summaries into one searchable knowledge base\nA practical guide with templates, naming rules and weekly review habits that stick',
        keywords: ['knowledge base', 'reading notes', 'templates', 'weekly review', 'naming rules', 'summaries', 'highlights', 'habits'],
        count: 3, width: 440, height: 586, scale: 1, format: 'png',
      },
      {
        text: '三个月读完五十本书：我的阅读笔记、摘录和复盘方法全公开\n附模板和每周复盘清单，照着做就能坚持',
        keywords: ['阅读笔记', '复盘方法', '每周复盘清单', '知识管理', '效率工具', '读书方法', '时间管理', '习惯养成'],
        count: 3, width: 500, height: 500, scale: 1, format: 'png',
      },
    ];
    const outside: string[] = [];
    let fitted = 0;
    for (const theme of service.app.cards.themes.themes) {
      const { theme: resolved, mode } = service.app.cards.themes.resolve(theme.id, undefined);
      for (const request of requests) {
        for (const design of coverDesigns(request)) {
          const card = { theme: resolved, mode, width: request.width, height: request.height, scale: 1 };
          const found = await service.app.cards.renderer.run(AbortSignal.timeout(30_000), async (page) => {
            const html = await fitCover(page, { ...card, html: design.html, smallest: smallestDesignFit });
            await page.layout(cardMarkup({ ...card, fixedHeight: true, contentHtml: html }));
            // Every part of the design (and each tag) inside the card's content box.
            return page.evaluate<string[]>(`(() => {
              const box = document.querySelector('.card-content-inner').getBoundingClientRect();
              const parts = [...document.querySelectorAll('.cover > *, .cover-tag')];
              return parts.filter((part) => { const r = part.getBoundingClientRect(); return r.bottom > box.bottom + 1 || r.top < box.top - 1; })
                .map((part) => part.className || part.tagName);
            })()`).then((cut) => ({ cut, fitted: html !== design.html }));
          });
          if (found.fitted) fitted += 1;
          for (const part of found.cut) outside.push(`${theme.id} ${design.name} ${request.width}×${request.height}: ${part}`);
        }
      }
    }
    assert.deepEqual(outside, [], 'parts of a cover outside its card');
    assert.ok(fitted > 0, 'some designs needed fitting');
  });

  it('keeps the title of every design in every theme and mode: one line, several lines, or a literal \\n', async () => {
    // The stacked design pins its title to the foot of the card. In plain-notes its font's glyphs
    // reach a little below the title's lines, overHiddenMode's cut moved above them, and only the
    // quote mark and the rule were drawn. MD2Card clients send a literal backslash-n for a break.
    assert.equal(normalizeCoverRequest({ text: '标题\\n副标题' }).text, '标题\n副标题', 'a literal \\n is a line break');
    const texts = ['七天学会做知识卡片', '七天学会做知识卡片\n从零开始的方法', '七天学会做知识卡片\\n从零开始的方法'];
    const missing: string[] = [];
    for (const theme of service.app.cards.themes.themes) {
      for (const mode of theme.modes.length > 0 ? theme.modes : [undefined]) {
        const { theme: resolved } = service.app.cards.themes.resolve(theme.id, mode);
        // Each text at the default size, and the first also at 200×200, laid out as a 320-px cover.
        const requests = [...texts.map((text) => ({ text })), { text: texts[0]!, width: 200, height: 200 }];
        for (const fields of requests) {
          const request = normalizeCoverRequest({ ...fields, count: 3, scale: 1 });
          const { text } = fields;
          const { designs, card } = coverLayout(request, resolved, mode);
          for (const design of designs) {
            const problem = await service.app.cards.renderer.run(AbortSignal.timeout(30_000), async (page) => {
              const contentHtml = await fitCover(page, { ...card, html: design.html, smallest: smallestDesignFit });
              // Laid out as renderCover lays it out; measured before the capture, which is skipped.
              let found: string | null = null;
              await renderCards(page, { ...card, format: 'png', splitMode: 'noSplit', overHiddenMode: true, contentHtml }, undefined, async () => {
                found = await page.evaluate<string | null>(visibleTitleProblem);
                throw new Error('measured');
              }).catch((error: Error) => assert.equal(error.message, 'measured'));
              return found;
            });
            if (problem) missing.push(`${theme.id} ${mode ?? ''} ${design.name} ${request.width}×${request.height} ${JSON.stringify(text)}: ${problem}`);
          }
        }
      }
    }
    assert.deepEqual(missing, [], 'covers whose title is not drawn whole');
  });

  it('draws a cover in the chosen theme, size and format, with keywords given as a list', async () => {
    const { status, json } = await cover({ text: 'Weekly notes', keywords: ['focus', 'habits'], theme: 'pop-art', themeMode: 'mint-mode', width: 500, height: 500, scale: 1 });
    assert.equal(status, 200, JSON.stringify(json));
    const [png] = (await pngsOf(json)) as DecodedPng[];
    assert.deepEqual([png!.width, png!.height], [500, 500]);
    assert.ok(countNear(png!, [0x7f, 0xd1, 0xae], 30) > 10_000, 'pop-art mint page around the cover');

    const blind = await cover({ text: 'Weekly notes', theme: 'minimal', themeMode: 'dark-mode', scale: 1 });
    assert.equal(blind.status, 200);
    assert.match(blind.json.warnings[0], /themeMode "dark-mode" was ignored/);
  });

  it('marks a cover with the watermark, at the bottom right of its card', async () => {
    const plain = await cover({ text: 'Weekly notes', theme: 'plain-notes', scale: 1 });
    const marked = await cover({ text: 'Weekly notes', theme: 'plain-notes', scale: 1, watermark: '@xiaoman' });
    assert.equal(marked.status, 200, JSON.stringify(marked.json));
    const [[withIt], [without]] = [await pngsOf(marked.json), await pngsOf(plain.json)];
    assert.ok(differingFraction(withIt!, without!) > 0.0005, 'the cover carries the watermark');
    const upperHalf = (png: DecodedPng) => ({ ...png, height: png.height / 2, data: png.data.subarray(0, (png.data.length / 2) | 0) });
    assert.ok(differingFraction(upperHalf(withIt!), upperHalf(without!)) < 0.0001, 'and nothing else changed');
  });

  it('reads numbers sent as text, as MD2Card clients send them, and says so', async () => {
    const { status, json } = await cover({ text: 'Weekly notes', count: '1', width: '300', height: '400', scale: '1' });
    assert.equal(status, 200, JSON.stringify(json));
    assert.deepEqual([json.images.length, json.images[0].width, json.images[0].height], [1, 300, 400]);
    assert.deepEqual(json.warnings.map((warning: string) => warning.split(' ')[0]), ['count', 'width', 'height', 'scale']);
  });

  const refused: Array<[string, unknown, number, RegExp]> = [
    ['no text', { keywords: 'x' }, 400, /^text is required/],
    ['a blank text', { text: '   ' }, 400, /^text is not accepted/],
    ['count 4', { text: 'x', count: 4 }, 400, /^count is not accepted: got number 4; accepted: how many cover designs, 1–3/],
    ['a count of null', { text: 'x', count: null }, 400, /^count is not accepted: got null; accepted: how many cover designs, 1–3/],
    ['a count that is not a number', { text: 'x', count: 'three' }, 400, /^count is not accepted: got "three"; accepted: how many cover designs, 1–3/],
    ['an unknown theme', { text: 'x', theme: 'no-such-theme' }, 400, /no-such-theme/],
    ['a keyword over 40 characters in a list', { text: 'x', keywords: ['k'.repeat(41)] }, 400, /^keywords is not accepted: .*at most 40 characters each/],
    ['a watermark more opaque than opaque', { text: 'x', watermark: { text: '@a', opacity: 2 } }, 400, /^watermark\.opacity is not accepted: got number 2; accepted: 0\.05–1/],
    ['a keyword over 40 characters in a string', { text: 'x', keywords: `short, ${'k'.repeat(41)}` }, 400, /^keywords is not accepted: got a keyword of 41 characters; accepted: keywords of at most 40 characters each/],
    // A cover is one card of its own size: advice of split modes or Markdown does not apply to it.
    ['a cover larger than one image may be', { text: 'x', width: 2000, height: 4000, scale: 3 }, 400, /^A cover of 2000×4000 at scale 3 would have 72 million device pixels; one image may have at most 60 million\. Use a smaller width, height or scale\.$/],
  ];
  for (const [name, body, status, message] of refused) {
    it(`answers ${name} with ${status} and success: false`, async () => {
      const answer = await cover(body);
      assert.equal(answer.status, status);
      assert.equal(answer.json.success, false);
      assert.equal(answer.json.error, 'invalid_request');
      assert.match(answer.json.message, message);
    });
  }

  it('needs the API key', async () => {
    const answer = await cover({ text: 'x' }, { 'x-api-key': 'wrong-key-wrong-key' });
    assert.equal(answer.status, 401);
    assert.deepEqual([answer.json.success, answer.json.error], [false, 'unauthorized']);
  });
});

/**
 * In the render page: what keeps the cover's title from being seen whole, or null. Every line of
 * its text must lie inside the card's content box and above overHiddenMode's cut and its fade.
 */
const visibleTitleProblem = `(() => {
  const title = document.querySelector('.cover-title');
  if (!title || title.textContent.trim() === '') return 'no title text';
  const inner = document.querySelector('.card-content-inner');
  const box = inner.getBoundingClientRect();
  let bottom = box.bottom;
  if (inner.closest('.card').classList.contains('content-truncated')) {
    const style = getComputedStyle(inner);
    const fade = parseFloat(style.getPropertyValue('--truncation-fade')) * parseFloat(style.fontSize);
    bottom = Math.min(bottom, box.top + parseFloat(style.getPropertyValue('--truncate-at')) - fade);
  }
  const range = document.createRange();
  range.selectNodeContents(title);
  const lines = [...range.getClientRects()].filter((line) => line.width > 0 && line.height > 0);
  if (lines.length === 0) return 'title has no lines';
  const hidden = lines.filter((line) => line.top < box.top - 1 || line.bottom > bottom + 1 || line.left < box.left - 1 || line.right > box.right + 1);
  return hidden.length === 0 ? null : hidden.length + ' of ' + lines.length + ' title line(s) outside the visible part of the card (bottom ' + Math.round(bottom) + ', lines ' + hidden.map((line) => Math.round(line.top) + '–' + Math.round(line.bottom)).join(', ') + ')';
})()`;
