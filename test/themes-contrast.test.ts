// Readable text in every theme and mode, measured as a reader sees it: every highlighted code
// token, inline code, body text, GitHub alert (title and body) and cover title and keyword against the pixels behind it, at WCAG AA (4.5:1; 3:1 for text
// of 24 px and more). Every card is laid out in one page of the service's own renderer, through
// the service's own Markdown pipeline; the background is captured with the text hidden, so
// gradients, panels and highlighted lines count as drawn (themes/README.md §5).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { coverDesigns } from '../src/cards/cover/cover-designs.js';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import { cardMarkup } from '../src/cards/render/card-markup.js';
import { contrastRatio, type Rgb } from './helpers/contrast.js';
import { decodePng, pixel, type DecodedPng } from './helpers/images.js';
import { startService, type RunningService } from './helpers/service.js';

const codeDocument = [
  '# 代码 Code',
  'Body text with `inline code`, `const x = 1` and 中文 `代码`.',
  '```ts title="app.ts" showLineNumbers {2}',
  '// A comment that should be readable',
  'import { readFile } from "node:fs/promises";',
  'export async function load(path: string): Promise<number[]> {',
  '  const text = await readFile(path, "utf8"); /* block */',
  '  return text.split(/\\s+/).map(Number).filter((n) => n > 0 && !Number.isNaN(n));',
  '}',
  '```',
  '```python',
  '# comment',
  'def greet(name: str = "world") -> None:',
  '    print(f"hello {name}", 42, True, None)',
  '```',
  '```bash',
  'npm install --save @fontsource/noto-sans-kr  # fonts',
  'echo "$HOME" | grep -E \'^/root\' && exit 1',
  '```',
  '```json',
  '{ "name": "cardwright", "version": 1, "private": true, "tags": null }',
  '```',
  '```css',
  '.card > .title:hover { color: #ff0066; margin: 0 auto !important; }',
  '```',
  '```diff',
  '- removed line',
  '+ added line',
  '```',
  ...['NOTE', 'TIP', 'IMPORTANT', 'WARNING', 'CAUTION'].map((kind) => `> [!${kind}]\n> 提示 ${kind.toLowerCase()} text.`),
].join('\n\n');

interface Sample {
  card: number;
  kind: 'token' | 'inline code' | 'body' | 'alert title' | 'alert body' | 'cover title' | 'cover keyword';
  text: string;
  /** Text colour with the opacity of its ancestors folded into alpha. */
  rgba: [number, number, number, number];
  fontSize: number;
  box: { x: number; y: number; width: number; height: number };
}

/** Runs in the page: every text run worth checking, with its colour and box. */
const collectSamples = `(() => {
  const samples = [];
  const cards = [...document.getElementById('cards').children];
  const alphaOf = (element) => {
    let alpha = 1;
    for (let node = element; node && node.nodeType === 1; node = node.parentElement) alpha *= Number(getComputedStyle(node).opacity);
    return alpha;
  };
  // Any CSS colour (rgb(), oklab() of a color-mix, …) as sRGB bytes, read back from a canvas.
  const context = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  const rgbaOf = (element) => {
    context.clearRect(0, 0, 1, 1);
    context.fillStyle = getComputedStyle(element).color;
    context.fillRect(0, 0, 1, 1);
    const [r, g, b, a] = context.getImageData(0, 0, 1, 1).data;
    return [r, g, b, (a / 255) * alphaOf(element)];
  };
  cards.forEach((card, index) => {
    const origin = card.getBoundingClientRect();
    const add = (element, kind) => {
      const text = element.textContent;
      if (!text.trim()) return;
      for (const rect of element.getClientRects()) {
        if (rect.width < 2 || rect.height < 2) continue;
        samples.push({ card: index, kind, text: text.slice(0, 40), rgba: rgbaOf(element), fontSize: parseFloat(getComputedStyle(element).fontSize),
          box: { x: rect.left - origin.left, y: rect.top - origin.top, width: rect.width, height: rect.height } });
      }
    };
    card.querySelectorAll('.shiki .line span').forEach((span) => { if (span.children.length === 0) add(span, 'token'); });
    card.querySelectorAll(':not(pre) > code').forEach((code) => add(code, 'inline code'));
    card.querySelectorAll('.markdown-alert-title').forEach((title) => add(title, 'alert title'));
    card.querySelectorAll('.markdown-alert > p:not(.markdown-alert-title)').forEach((body) => add(body, 'alert body'));
    // Text nodes one line box at a time, in the colour and size of the element around them.
    const addText = (node, kind) => {
      if (!node.textContent.trim()) return;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const rect of range.getClientRects()) {
        if (rect.width < 2) continue;
        samples.push({ card: index, kind, text: node.textContent.slice(0, 40), rgba: rgbaOf(node.parentElement), fontSize: parseFloat(getComputedStyle(node.parentElement).fontSize),
          box: { x: rect.left - origin.left, y: rect.top - origin.top, width: rect.width, height: rect.height } });
      }
    };
    const textNodesIn = (element) => {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      const nodes = [];
      while (walker.nextNode()) nodes.push(walker.currentNode);
      return nodes;
    };
    card.querySelectorAll('.card-content-inner > p').forEach((p) => {
      for (const node of p.childNodes) if (node.nodeType === 3) addText(node, 'body');
    });
    card.querySelectorAll('.cover-title').forEach((title) => textNodesIn(title).forEach((node) => addText(node, 'cover title')));
    card.querySelectorAll('.cover-band, .cover-kicker, .cover-tag').forEach((keyword) => textNodesIn(keyword).forEach((node) => addText(node, 'cover keyword')));
  });
  return samples;
})()`;

/** Hides every glyph (text, markers, generated text) but nothing else, so a capture shows the background. */
const hideText = `(() => {
  const style = document.createElement('style');
  style.id = 'hide-text';
  style.textContent = '#cards, #cards *, #cards *::before, #cards *::after, #cards *::marker { color: transparent !important; -webkit-text-fill-color: transparent !important; text-shadow: none !important; text-decoration-color: transparent !important; text-emphasis-color: transparent !important; }';
  document.head.append(style);
})()`;

/** The most frequent colour in a box: the background behind the text. */
function backgroundIn(png: DecodedPng, box: Sample['box'], scale: number): Rgb {
  const counts = new Map<number, number>();
  for (let y = Math.ceil(box.y * scale); y < Math.floor((box.y + box.height) * scale); y++) {
    for (let x = Math.ceil(box.x * scale); x < Math.floor((box.x + box.width) * scale); x++) {
      if (x < 0 || y < 0 || x >= png.width || y >= png.height) continue;
      const [r, g, b] = pixel(png, x, y);
      const key = (r << 16) | (g << 8) | b;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  const [key] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [0xffffff];
  return [(key >> 16) & 255, (key >> 8) & 255, key & 255];
}

/** A text colour with alpha, as it shows over an opaque background. */
const over = ([r, g, b, a]: Sample['rgba'], [br, bg, bb]: Rgb): Rgb => [r * a + br * (1 - a), g * a + bg * (1 - a), b * a + bb * (1 - a)];

describe('contrast of text in every theme and mode', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  const builtinLooks = () =>
    service.app.cards.themes.themes
      .filter((theme) => theme.builtin)
      .flatMap((theme) => (theme.modes.length > 0 ? theme.modes : [undefined]).map((mode) => ({ theme, mode, label: `${theme.id}${mode ? `/${mode}` : ''}` })));

  /**
   * Lays out these cards in one page of the service's renderer, and measures every sample against
   * the background captured with the text hidden; answers the text runs below AA and, per card
   * label and kind of sample, the worst ratio found.
   */
  async function measure(cards: Array<{ label: string; markup: string }>): Promise<{ failures: string[]; worst: Map<string, { ratio: number; what: string }> }> {
    const scale = 1;
    const { samples, backgrounds } = await service.app.cards.renderer.run(AbortSignal.timeout(120_000), async (page) => {
      const boxes = await page.layout(cards.map((card) => card.markup).join(''));
      const samples = await page.evaluate<Sample[]>(collectSamples);
      await page.evaluate(hideText);
      const backgrounds: DecodedPng[] = [];
      for (const box of boxes) backgrounds.push(await decodePng(await page.capture(box, { scale, format: 'png' })));
      await page.evaluate(`document.getElementById('hide-text').remove()`);
      return { samples, backgrounds };
    });
    const worst = new Map<string, { ratio: number; what: string }>();
    const failures: string[] = [];
    for (const sample of samples) {
      const label = cards[sample.card]!.label;
      const background = backgroundIn(backgrounds[sample.card]!, sample.box, scale);
      const ink = over(sample.rgba, background);
      const ratio = contrastRatio(ink.map(Math.round) as Rgb, background);
      const needed = sample.fontSize >= 24 ? 3 : 4.5;
      const what = `${sample.kind} ${JSON.stringify(sample.text)} rgb(${ink.map(Math.round)}) on rgb(${background}) is ${ratio.toFixed(2)}:1`;
      if (ratio < needed) failures.push(`${label}: ${what}`);
      const key = `${label} ${sample.kind}`;
      if (!worst.has(key) || worst.get(key)!.ratio > ratio) worst.set(key, { ratio, what });
    }
    return { failures, worst };
  }

  it('code tokens, inline code, body text and GitHub alerts meet WCAG AA against what is drawn behind them', async () => {
    const looks = builtinLooks();
    const { html } = await renderMarkdown(codeDocument);
    const { failures, worst } = await measure(
      looks.map(({ theme, mode, label }) => ({ label, markup: cardMarkup({ theme, mode, width: 440, height: 586, fixedHeight: false, contentHtml: html }) })),
    );
    if (process.env.CONTRAST_REPORT) fs.writeFileSync(process.env.CONTRAST_REPORT, [...worst].map(([key, { what }]) => `${key}: ${what}`).join('\n'));
    for (const look of looks) {
      for (const kind of ['token', 'inline code', 'body', 'alert title', 'alert body']) assert.ok(worst.has(`${look.label} ${kind}`), `${look.label}: ${kind} measured`);
    }
    assert.deepEqual(failures.slice(0, 40), [], `${failures.length} text runs below WCAG AA`);
  });

  it("draws a link in a heading as the heading is drawn, not in the body text's link colour, in every theme and mode", async () => {
    // A theme's link colour is chosen for body text; on a heading's band or pill of that colour a
    // link vanished (cyberpunk's yellow h3 band, social-purple's purple h3 pill).
    const looks = builtinLooks();
    const { html } = await renderMarkdown('# Title [link one](https://example.com/1)\n\n## 小节 [链接](https://example.com/2)\n\n### Third [level](https://example.com/3)\n\nBody with a [link](https://example.com/4).');
    const mismatches = await service.app.cards.renderer.run(AbortSignal.timeout(120_000), async (page) => {
      await page.layout(looks.map(({ theme, mode }) => cardMarkup({ theme, mode, width: 440, height: 586, fixedHeight: false, contentHtml: html })).join(''));
      // Per card, in the order of `looks`: what is wrong with its heading links.
      return page.evaluate<string[][]>(`[...document.getElementById('cards').children].map((card) => {
        const links = [...card.querySelectorAll(':is(h1, h2, h3, h4, h5, h6) a')];
        const wrong = links.length === 3 ? [] : [links.length + ' heading links'];
        for (const link of links) {
          const own = getComputedStyle(link);
          const heading = getComputedStyle(link.closest('h1, h2, h3, h4, h5, h6'));
          if (own.color !== heading.color || own.webkitTextFillColor !== heading.webkitTextFillColor) wrong.push(link.textContent + ' ' + own.color + ' in a heading of ' + heading.color);
        }
        return wrong;
      })`);
    });
    assert.deepEqual(
      mismatches.flatMap((wrong, index) => wrong.map((what) => `${looks[index]!.label}: ${what}`)),
      [],
    );
  });

  it('the title and keywords of every cover design (POST /api/generate/cover) meet WCAG AA in every theme and mode', async () => {
    const request = { text: '高效学习的方法 Study Smarter', keywords: ['高效', '学习', 'Smarter', '复盘'], count: 3, width: 440, height: 586, format: 'png', scale: 1 } as const;
    const designs = coverDesigns({ ...request, keywords: [...request.keywords] });
    assert.equal(designs.length, 3);
    const cards = builtinLooks().flatMap(({ theme, mode, label }) =>
      designs.map((design) => ({ label: `${label} ${design.name}`, markup: cardMarkup({ theme, mode, width: 440, height: 586, fixedHeight: true, contentHtml: design.html }) })),
    );
    const { failures, worst } = await measure(cards);
    for (const { label } of cards) {
      for (const kind of ['cover title', 'cover keyword']) assert.ok(worst.has(`${label} ${kind}`), `${label}: ${kind} measured`);
    }
    assert.deepEqual(failures.slice(0, 40), [], `${failures.length} text runs below WCAG AA`);
  });
});
