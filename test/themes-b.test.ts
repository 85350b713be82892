// Each of these themes, rendered through the real service, shows what its name promises: its
// signature colours where a reader looks for them, in fixed-height cards and in cards grown with
// long content, whose bottom keeps the theme's frame and readable (WCAG AA) body text. And in
// several themes, Chinese, Japanese and Korean text breaks its lines between words and phrases.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { jaModel, Parser, zhHansModel, zhHantModel } from 'budoux';
import { contrastRatio, paperAndInk, relativeLuminance, type Area, type Rgb } from './helpers/contrast.js';
import { decodePng, download, pixel, type DecodedPng } from './helpers/images.js';
import { breaksInside, renderCoverLines, renderLines, shortLastLine, wordBoundaries, type BlockLines } from './helpers/line-breaks.js';
import { startService, type RunningService } from './helpers/service.js';

const scale = 2;

const richDocument = [
  '# 高效学习 Study Smarter ✨',
  '每天进步一点点，**坚持**才是关键。Small steps, *every day*, add up — ~~cramming~~ doesn’t. 🌱',
  '## 核心方法 Core ideas',
  '1. 番茄工作法 Pomodoro\n2. 费曼技巧 Feynman\n3. 间隔重复 spacing',
  '- 早起读书 📚\n- 记录灵感，<mark>每天复盘</mark>',
  '### 今日清单',
  '- [x] 完成阅读笔记\n- [ ] 整理错题本',
  '> 学而不思则罔，思而不学则殆。',
  '```js\nconst habit = (day) => day * 1.01; // 复利\n```',
  '| 习惯 | 时长 |\n| --- | --- |\n| 阅读 | 30 min |',
  '---',
  '更多内容见 [文档](https://example.com)，脚注[^1]。ありがとう。',
  '[^1]: 脚注 footnote.',
].join('\n\n');

/** Plain paragraphs only, so the middle of the card is body text on the theme's paper. */
const bodyDocument = Array.from({ length: 14 }, () => '正文示例文字，用来测量对比度。Body text for measuring contrast.').join('\n\n');

/** Fraction of an area's pixels that satisfy a colour test. */
function share(png: DecodedPng, area: Area, test: (rgb: Rgb) => boolean): number {
  let hits = 0;
  for (let y = area.y * scale; y < (area.y + area.height) * scale; y++) {
    for (let x = area.x * scale; x < (area.x + area.width) * scale; x++) if (test(pixel(png, x, y))) hits++;
  }
  return hits / (area.width * area.height * scale * scale);
}

const near = (target: Rgb, tolerance = 40) => (rgb: Rgb) => rgb.every((value, i) => Math.abs(value - target[i]!) <= tolerance);
const hueOf = ([r, g, b]: Rgb) => {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  if (max === min) return 0;
  const d = max - min;
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return (h * 60 + 360) % 360;
};
const saturation = ([r, g, b]: Rgb) => (Math.max(r, g, b) === 0 ? 0 : (Math.max(r, g, b) - Math.min(r, g, b)) / Math.max(r, g, b));
const isDark = (rgb: Rgb) => relativeLuminance(rgb) < 0.03;

/** A column of body text, clear of list markers and edge decorations. */
const bodyArea = { x: 70, width: 300 };

interface ThemePromise {
  id: string;
  /** What a reader sees at once, checked on the rich document's card. */
  signature: string;
  check(png: DecodedPng): void;
}

const promises: ThemePromise[] = [
  {
    id: 'social-purple',
    signature: 'a violet ticket around a white paper slip',
    check(png) {
      const edge = share(png, { x: 0, y: 100, width: 12, height: 300 }, (rgb) => hueOf(rgb) > 245 && hueOf(rgb) < 285 && saturation(rgb) > 0.3);
      assert.ok(edge > 0.9, `ticket edge is violet (${edge.toFixed(2)})`);
      assert.ok(share(png, { x: 60, y: 80, width: 300, height: 300 }, near([255, 255, 255], 6)) > 0.5, 'the slip is white paper');
    },
  },
  {
    id: 'notebook',
    signature: 'ruled blue lines and a red binding line down the margin',
    check(png) {
      const binding = share(png, { x: 46, y: 100, width: 1, height: 400 }, (rgb) => rgb[0] > 200 && rgb[1] < 170 && rgb[2] < 170);
      assert.ok(binding > 0.8, `red binding line at the margin (${binding.toFixed(2)})`);
      const rules = share(png, { x: 380, y: 80, width: 40, height: 400 }, near([215, 227, 240], 12));
      assert.ok(rules > 0.02 && rules < 0.2, `ruled lines cross the page (${rules.toFixed(3)})`);
    },
  },
  {
    id: 'darktech',
    signature: 'a near-black console with glowing cyan inside a thin cyan frame',
    check(png) {
      const frame = share(png, { x: 0, y: 40, width: 1, height: 500 }, (rgb) => rgb[0] < 40 && rgb[1] > 60 && rgb[2] > 70);
      assert.ok(frame > 0.9, `thin cyan frame (${frame.toFixed(2)})`);
      assert.ok(share(png, { x: 0, y: 0, width: 440, height: 586 }, isDark) > 0.5, 'the console is near-black');
      assert.ok(share(png, { x: 0, y: 0, width: 440, height: 586 }, (rgb) => rgb[0] < 120 && rgb[1] > 190 && rgb[2] > 220) > 0.002, 'cyan glows on it');
    },
  },
  {
    id: 'cyberpunk',
    signature: 'neon magenta, cyan and a yellow hazard stripe on a dark street',
    check(png) {
      const all: Area = { x: 0, y: 0, width: 440, height: 586 };
      assert.ok(share(png, all, (rgb) => relativeLuminance(rgb) < 0.05) > 0.5, 'the night is dark');
      assert.ok(share(png, all, (rgb) => rgb[0] > 220 && rgb[1] < 90 && rgb[2] > 100) > 0.002, 'magenta neon');
      assert.ok(share(png, all, (rgb) => rgb[0] < 90 && rgb[1] > 200 && rgb[2] > 220) > 0.002, 'cyan neon');
      assert.ok(share(png, { x: 0, y: 0, width: 440, height: 8 }, near([252, 238, 10], 30)) > 0.3, 'a yellow hazard stripe on top');
    },
  },
  {
    id: 'typewriter',
    signature: 'ink on aged, yellowed paper',
    check(png) {
      const paper = share(png, { x: 0, y: 0, width: 440, height: 586 }, (rgb) => rgb[0] > 200 && rgb[0] > rgb[1] && rgb[1] > rgb[2] && rgb[0] - rgb[2] > 25);
      assert.ok(paper > 0.6, `the paper is warm and yellowed, not white (${paper.toFixed(2)})`);
      assert.ok(share(png, { x: 30, y: 25, width: 380, height: 2 }, (rgb) => rgb[0] > 130 && rgb[1] < 70) > 0.8, 'a red ink ribbon on top');
    },
  },
  {
    id: 'traditional-chinese',
    signature: 'rice paper with a red seal stamped at the top right',
    check(png) {
      const seal = share(png, { x: 370, y: 20, width: 60, height: 60 }, (rgb) => rgb[0] > 140 && rgb[1] < 70 && rgb[2] < 70);
      assert.ok(seal > 0.25, `red seal (${seal.toFixed(2)})`);
      const paper = share(png, { x: 0, y: 0, width: 440, height: 586 }, near([247, 239, 221], 14));
      assert.ok(paper > 0.5, `rice-paper ground (${paper.toFixed(2)})`);
    },
  },
  {
    id: 'fairytale',
    signature: 'a lavender dusk sky with a golden star over a white cloud panel',
    check(png) {
      const sky = share(png, { x: 0, y: 100, width: 16, height: 300 }, (rgb) => hueOf(rgb) > 250 && hueOf(rgb) < 300 && relativeLuminance(rgb) > 0.5);
      assert.ok(sky > 0.8, `lavender sky at the edge (${sky.toFixed(2)})`);
      assert.ok(share(png, { x: 390, y: 0, width: 50, height: 56 }, (rgb) => rgb[0] > 220 && rgb[1] > 160 && rgb[2] < 110) > 0.05, 'a golden star at the top right');
    },
  },
  {
    id: 'business',
    signature: 'a navy masthead with a gold keyline over a white page',
    check(png) {
      assert.ok(share(png, { x: 0, y: 4, width: 280, height: 44 }, near([15, 42, 74], 20)) > 0.7, 'navy masthead');
      assert.ok(share(png, { x: 0, y: 50, width: 440, height: 2 }, near([201, 162, 39], 30)) > 0.9, 'gold keyline under it');
      assert.ok(share(png, { x: 0, y: 300, width: 20, height: 200 }, near([255, 255, 255], 3)) > 0.95, 'white page');
    },
  },
  {
    id: 'japanese-magazine',
    signature: 'off-white stock with a vertical red feature tab in the right margin',
    check(png) {
      const tab = share(png, { x: 410, y: 80, width: 24, height: 300 }, (rgb) => rgb[0] > 150 && rgb[1] < 90 && rgb[2] < 90);
      assert.ok(tab > 0.03, `red vertical tab (${tab.toFixed(3)})`);
      assert.ok(share(png, { x: 0, y: 0, width: 440, height: 586 }, near([250, 247, 240], 4)) > 0.6, 'warm off-white stock');
      assert.ok(share(png, { x: 28, y: 56, width: 380, height: 8 }, (rgb) => relativeLuminance(rgb) < 0.05) > 0.05, 'a masthead hairline');
    },
  },
  {
    id: 'watercolor',
    signature: 'rose, sky and leaf-green washes bleeding in from the corners',
    check(png) {
      const average = (area: Area): Rgb => {
        const sum = [0, 0, 0];
        for (let y = area.y * scale; y < (area.y + area.height) * scale; y++) {
          for (let x = area.x * scale; x < (area.x + area.width) * scale; x++) pixel(png, x, y).forEach((v, i) => {
            sum[i]! += v;
          });
        }
        const n = area.width * area.height * scale * scale;
        return sum.map((v) => v / n) as Rgb;
      };
      const [rose, sky, leaf] = [average({ x: 0, y: 0, width: 20, height: 20 }), average({ x: 420, y: 60, width: 20, height: 20 }), average({ x: 420, y: 566, width: 20, height: 20 })];
      assert.ok(rose[0] > rose[1] + 25 && rose[0] > rose[2], `rose wash top left rgb(${rose})`);
      assert.ok(sky[2] > sky[0] + 20, `sky wash top right rgb(${sky})`);
      assert.ok(leaf[1] > leaf[0] + 15 && leaf[1] > leaf[2], `leaf-green wash bottom right rgb(${leaf})`);
    },
  },
  {
    id: 'meadow-dawn',
    signature: 'a warm sunrise sky above green hills',
    check(png) {
      const sky = pixel(png, 10 * scale, 10 * scale);
      assert.ok(sky[0] > 230 && sky[0] - sky[2] > 50, `warm peach sky rgb(${sky})`);
      assert.ok(share(png, { x: 320, y: 8, width: 80, height: 60 }, (rgb) => rgb[0] > 250 && rgb[1] > 240 && rgb[2] > 200) > 0.1, 'the sun is up');
      assert.ok(share(png, { x: 0, y: 566, width: 440, height: 20 }, (rgb) => rgb[1] > rgb[0] + 30 && rgb[1] > rgb[2]) > 0.8, 'green hills along the bottom');
    },
  },
];

// Chinese and Japanese line breaks (src/cards/markdown/cjk-phrases.ts, docs/themes.md#line-breaks),
// measured in the page on real text: a creator's notes, the corpus fixtures, and the Chinese,
// Japanese and Korean READMEs of installed packages.
const repository = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const readRepositoryFile = (file: string) => fs.readFileSync(path.join(repository, file), 'utf8');
/** A README's first `length` characters or so, up to the end of a paragraph. */
const readmeStart = (file: string, length = 4000) => {
  const text = readRepositoryFile(file);
  return text.slice(0, text.indexOf('\n\n', length));
};

const creatorNotes = [
  '# 《被讨厌的勇气》读后感：自由就是被别人讨厌',
  '那天我妈打电话来，说她终于学会了用手机视频。挂掉电话以后，我在阳台上站了很久——我妈',
  '每天只要坚持做这三个动作，你会发现自己的精神状态完全不一样了，试试看吧，只需要 5 分钟！',
  '很多人问我为什么要辞职去旅行。我想说，人生不是为了满足别人的期待，人是为了自由而活。',
  '早上七点起床，先喝一杯温水，然后做十分钟拉伸。早餐吃全麦面包和鸡蛋，配一杯黑咖啡，整个人都清醒了。',
  '## 三个让你效率翻倍的小技巧',
  '- 把手机放在另一个房间，专注工作二十五分钟再休息五分钟\n- 每天晚上写下明天最重要的三件事情\n- 学会拒绝不必要的会议和社交，把时间留给自己',
  '> 用 `npm install` 装好 **小红书** 的发布工具，再把 *Markdown* 笔记一键转成卡片。',
].join('\n\n');

type Language = 'zh-hans' | 'zh-hant' | 'ja' | 'ko';
const cjkDocuments: Array<{ name: string; language: Language; markdown: () => string; themes: string[] }> = [
  { name: 'creator notes', language: 'zh-hans', markdown: () => creatorNotes, themes: ['plain-notes', 'traditional-chinese', 'pop-art'] },
  { name: 'corpus zh-hans', language: 'zh-hans', markdown: () => readRepositoryFile('test/fixtures/corpus/zh-hans.md'), themes: ['traditional-chinese', 'minimal'] },
  { name: 'corpus zh-hant', language: 'zh-hant', markdown: () => readRepositoryFile('test/fixtures/corpus/zh-hant.md'), themes: ['japanese-magazine', 'warm'] },
  { name: 'corpus ja', language: 'ja', markdown: () => readRepositoryFile('test/fixtures/corpus/ja.md'), themes: ['japanese-magazine', 'plain-notes'] },
  { name: 'Biome README (zh-CN)', language: 'zh-hans', markdown: () => readmeStart('node_modules/@biomejs/biome/README.zh-CN.md'), themes: ['plain-notes', 'traditional-chinese'] },
  { name: 'Biome README (zh-TW)', language: 'zh-hant', markdown: () => readmeStart('node_modules/@biomejs/biome/README.zh-TW.md'), themes: ['business'] },
  { name: 'Biome README (ja)', language: 'ja', markdown: () => readmeStart('node_modules/@biomejs/biome/README.ja.md'), themes: ['japanese-magazine', 'minimalist'] },
  { name: 'Mermaid README (zh-CN)', language: 'zh-hans', markdown: () => readmeStart('node_modules/mermaid/README.zh-CN.md'), themes: ['notebook'] },
  { name: 'Biome README (ko)', language: 'ko', markdown: () => readmeStart('node_modules/@biomejs/biome/README.kr.md'), themes: ['plain-notes'] },
];

const words = wordBoundaries('zh');
const budouxParsers = { 'zh-hans': new Parser(zhHansModel), 'zh-hant': new Parser(zhHantModel), ja: new Parser(jaModel) };
/** Where BudouX's phrases of `text` begin, in its language. */
const phraseStarts = (language: Language) => (text: string) =>
  language === 'ko' ? new Set<number>() : new Set([0, ...budouxParsers[language].parseBoundaries(text)]);
/** Word starts, and every offset of a Korean text but those between two Hangul syllables (a Korean word). */
const wordStarts = (language: Language) => (text: string) =>
  language === 'ko' ? new Set([...text].flatMap((_, offset) => (/\p{Script=Hangul}/u.test(text[offset - 1] ?? '') && /\p{Script=Hangul}/u.test(text[offset]!) ? [] : [offset]))) : words(text);
const isHeading = (block: BlockLines) => /^h[1-6]/.test(block.block);
const eastAsianLetter = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** What a reader of the blocks would object to, in words. */
function lineBreakProblems(blocks: BlockLines[], language: Language): string[] {
  const problems: string[] = [];
  for (const block of blocks) {
    const where = `${block.block} "${block.text.slice(0, 16)}"`;
    if (block.overflows) problems.push(`${where}: a line runs out of its block`);
    // A table cell may break words when its table is too wide (fit-tables.ts).
    if (/^t[dh]/.test(block.block)) continue;
    if (shortLastLine(block) && !block.continues && eastAsianLetter.test(block.text)) problems.push(`${where}: last line ${JSON.stringify(block.lines.at(-1))}`);
    for (const inside of breaksInside(block, wordStarts(language))) problems.push(`${where}: break inside a word ${inside}`);
    if (isHeading(block)) for (const inside of breaksInside(block, phraseStarts(language))) problems.push(`${where}: break inside a phrase ${inside}`);
  }
  return problems;
}


describe('themes: what each one promises', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  async function render(body: Record<string, unknown>): Promise<DecodedPng> {
    const { status, json } = await service.generate({ scale, ...body });
    assert.equal(status, 200, JSON.stringify(json));
    assert.equal(json.images.length, 1);
    return await decodePng((await download(json.images[0].url)).bytes);
  }

  for (const promise of promises) {
    describe(promise.id, () => {
      it(`shows ${promise.signature}`, async () => {
        const png = await render({ theme: promise.id, markdown: richDocument, overHiddenMode: true });
        assert.deepEqual([png.width, png.height], [880, 1172]);
        promise.check(png);
      });

      it('grows with long content and ends like a fixed-height card of the theme', async () => {
        const fixed = await render({ theme: promise.id, markdown: richDocument, overHiddenMode: true });
        const grown = await render({ theme: promise.id, markdown: `${richDocument}\n\n${bodyDocument}` });
        assert.equal(grown.width, 880);
        assert.ok(grown.height > 1172, `grown to ${grown.height} px`);
        // The frame at the bottom-left corner (background, footer decoration) is the same in both.
        const corner = (png: DecodedPng) => pixel(png, 6 * scale, png.height - 6 * scale);
        assert.ok(contrastRatio(corner(fixed), corner(grown)) < 1.25, `bottom corner rgb(${corner(grown)}) vs fixed rgb(${corner(fixed)})`);
        // Body text near the bottom of the grown card, over whatever decorations sit there, stays AA.
        const { paper, ink, ratio } = paperAndInk(grown, { ...bodyArea, y: Math.floor(grown.height / scale) - 340, height: 200 }, scale);
        assert.ok(ratio >= 4.5, `ink rgb(${ink}) on paper rgb(${paper}) near the bottom is ${ratio.toFixed(2)}:1`);
      });
    });
  }

  describe('line breaks in Chinese, Japanese and Korean, measured in the page', () => {
    // The cards are captured only to be saved for a person to look at (SAVE_PNGS): the lines are read from the layout.
    const capture = Boolean(process.env.SAVE_PNGS);
    const save = (name: string, image: Buffer | undefined) => {
      if (!process.env.SAVE_PNGS || !image) return;
      fs.mkdirSync(process.env.SAVE_PNGS, { recursive: true });
      fs.writeFileSync(path.join(process.env.SAVE_PNGS, `${name.replace(/[^\w-]+/g, '-')}.png`), image);
    };

    it('breaks between words and phrases, and never ends a paragraph on a line of one or two characters, in several themes', async () => {
      const problems: string[] = [];
      let measuredBlocks = 0;
      for (const document of cjkDocuments) {
        const markdown = document.markdown();
        for (const theme of document.themes) {
          // A narrow card as well as the default: more lines, more breaks to get wrong.
          for (const width of [440, 360]) {
            const { images, blocks } = await renderLines(service, { markdown, theme, width }, { capture });
            save(`${document.name}-${theme}-${width}`, images[0]);
            measuredBlocks += blocks.filter((block) => block.lines.length > 1).length;
            problems.push(...lineBreakProblems(blocks, document.language).map((problem) => `${document.name}, ${theme}, ${width} px: ${problem}`));
          }
        }
      }
      assert.ok(measuredBlocks > 150, `only ${measuredBlocks} blocks of more than one line were measured`);
      assert.deepEqual(problems, []);
    });

    it('draws a Chinese heading holding a row of badges in themes whose headings shrink to fit (it crashed the render page)', async () => {
      // The contributors' heading of Mermaid's Chinese README, its badges failing to load here.
      const line = fs.readFileSync(path.join('node_modules', 'mermaid', 'README.zh-CN.md'), 'utf8').split('\n').find((text) => text.startsWith('## 贡献者 [!['));
      assert.ok(line, 'the README still has its badge heading');
      for (const theme of ['notebook', 'meadow-dawn']) {
        const { status, json } = await service.generate({ markdown: line, theme });
        assert.equal(status, 200, `${theme}: ${JSON.stringify(json)}`);
      }
    });

    it('breaks a wrapped Chinese heading at its comma or separator when that reads as well, in every split mode', async () => {
      // Balanced between phrases these drew "坚持早起100天，我的 / 人生真的变了吗？" and
      // "新手在家做手冲咖啡 / ｜零失败攻略". The last one has no punctuation to break at that
      // leaves its lines even, so it keeps its phrase breaks.
      const headings = ['# 坚持早起100天，我的人生真的变了吗？🌅', '# 新手在家做手冲咖啡｜零失败攻略☕️', '# 是的，我很想去看看那个地方的风景和人们'];
      for (const theme of ['minimal', 'cyberpunk', 'social-purple', 'traditional-chinese']) {
        for (const splitMode of ['noSplit', 'autoSplit'] as const) {
          const { blocks } = await renderLines(service, { markdown: headings.join('\n\n'), theme, splitMode });
          const lines = blocks.filter((block) => block.block.startsWith('h1')).map((block) => block.lines);
          const where = `${theme}, ${splitMode}: ${JSON.stringify(lines)}`;
          assert.equal(lines.length, 3, where);
          assert.match(lines[0]![0]!, /，$/, where);
          assert.match(lines[1]![0]!, /｜$/, where);
          assert.ok(lines[2]!.length > 1 && !/^是的，$/.test(lines[2]![0]!), where);
          // A theme's copy of the heading laid over it (cyberpunk's glow) breaks where the heading does.
          const copies = blocks.filter((block) => block.block.startsWith('h1')).map((block) => block.dataText);
          assert.equal(copies[0]!.replace(/\u2060/g, ''), '坚持早起100天，我的人生真的变了吗？🌅', where);
          assert.match(copies[1]!, /咖啡\u2060｜\u200b零/, where);
        }
      }
    });

    it('keeps its line rules across the cards of an autoSplit document', async () => {
      const markdown = ['zh-hans', 'zh-hant', 'ja'].map((name) => readRepositoryFile(`test/fixtures/corpus/${name}.md`)).join('\n\n');
      const { cards, blocks } = await renderLines(service, { markdown: `${creatorNotes}\n\n${markdown}`, theme: 'traditional-chinese', splitMode: 'autoSplit' });
      assert.ok(cards > 2, `${cards} cards`);
      assert.ok(blocks.some((block) => block.continues), 'a paragraph goes on on the next card');
      assert.deepEqual(lineBreakProblems(blocks, 'zh-hans'), []);
    });

    it('draws cover titles and keyword bands balanced, with no word, phrase or 《title》 split, and short centred texts unjustified', async () => {
      const problems: string[] = [];
      const title = '《被讨厌的勇气》教会我的：人是为了自由而活';
      const keywords = ['小红书', '自由', '读书笔记'];
      for (const theme of ['traditional-chinese', 'pop-art', 'plain-notes']) {
        const covers = await renderCoverLines(service, { text: `${title}\n每天读一点，慢慢变成更好的自己`, keywords, count: 3, theme, width: 440, height: 586, format: 'png', scale: 1 }, { capture });
        const { images, blocks: creatorBlocks } = await renderLines(service, {
          markdown: '正文',
          theme,
          creator: { cover: true, title: '七天学会做知识卡片，自由地表达自己', subtitle: '每天读一点，慢慢变成更好的自己', author: '林小满', end: '关注我，每天分享一个读书小技巧和笔记方法' },
        }, { capture });
        for (const [index, image] of images.entries()) save(`creator-${theme}-${index}`, image);
        for (const { design, image, blocks } of [...covers, { design: 'front matter', image: undefined, blocks: creatorBlocks }]) {
          save(`cover-${theme}-${design}`, image);
          const where = `${theme} ${design}`;
          for (const block of blocks) {
            if (/cover-title|cover-band|end-text|cover-subtitle/.test(block.block)) {
              for (const inside of [...breaksInside(block, words), ...breaksInside(block, phraseStarts('zh-hans'))]) problems.push(`${where} ${block.block}: break inside ${inside}`);
              const lengths = block.lines.map((line) => [...line.replace(/\s/g, '')].length);
              // Balanced: no line under half as long as the longest.
              if (Math.min(...lengths) * 2 < Math.max(...lengths)) problems.push(`${where} ${block.block}: unbalanced ${JSON.stringify(block.lines)}`);
            }
            if (/cover-title/.test(block.block)) {
              const start = block.text.indexOf('《');
              const end = block.text.indexOf('》');
              if (start >= 0 && block.breaks.some((offset) => offset > start && offset <= end)) problems.push(`${where}: 《title》 split ${JSON.stringify(block.lines)}`);
            }
            if (/cover-band/.test(block.block)) {
              for (const keyword of keywords) {
                const start = block.text.indexOf(keyword);
                if (block.breaks.some((offset) => offset > start && offset < start + keyword.length)) problems.push(`${where}: keyword ${keyword} split ${JSON.stringify(block.lines)}`);
              }
            }
            if (/end-text|cover-subtitle/.test(block.block) && block.align === 'justify') problems.push(`${where} ${block.block} is justified`);
          }
        }
        const endText = creatorBlocks.find((block) => /end-text/.test(block.block));
        assert.ok(endText && endText.lines.length === 2, `${theme}: the closing text is on two lines: ${JSON.stringify(endText?.lines)}`);
      }
      assert.deepEqual(problems, []);
    });
  });
});
