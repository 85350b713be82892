// The theme catalogue as a client sees it: every theme and mode renders, every one looks
// different, body text is readable, wrong names are refused with the accepted values, aliases
// resolve, and every glyph of the sample is drawn by a bundled font, never by the host or a tofu box.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { coverDesigns } from '../src/cards/cover/cover-designs.js';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import { signatureHtml } from '../src/cards/render/creator-cards.js';
import { projectRoot } from '../src/paths.js';
import { cardMarkup } from '../src/cards/render/card-markup.js';
import { textFonts, type TextFonts } from './helpers/page-inspection.js';
import { bundledFamilies } from './helpers/bundled-fonts.js';
import { themeAliases } from '../src/cards/themes/registry.js';
import type { Theme } from '../src/cards/themes/theme-file.js';
import { paperAndInk, type Area } from './helpers/contrast.js';
import { decodePng, differingFraction, download, pixel, type DecodedPng } from './helpers/images.js';
import { solidPng } from './helpers/local-image-server.js';
import { startService, type RunningService } from './helpers/service.js';

/** Theme IDs and modes of the spec's table 2.4 (themes without modes accept none). */
const specModes: Record<string, string[]> = {
  'plain-notes': ['light-mode', 'dark-mode'],
  'coil-notebook': ['blue-mode', 'pink-mode', 'mint-mode', 'yellow-mode'],
  'pop-art': ['default-mode', 'pink-blue-mode', 'mint-mode', 'purple-mode'],
  ...Object.fromEntries(
    [
      'brand-a', 'brand-b', 'art-deco', 'glassmorphism', 'warm', 'minimal', 'minimalist', 'dreamy', 'nature', 'social-purple',
      'notebook', 'darktech', 'typewriter', 'watercolor', 'traditional-chinese', 'fairytale', 'business', 'japanese-magazine',
      'cyberpunk', 'meadow-dawn',
    ].map((id) => [id, []]),
  ),
};

const sample = fs.readFileSync(path.join(projectRoot, 'docs', 'gallery-sample.md'), 'utf8');

/** Plain paragraphs, so the middle of the card is body text on the theme's paper. */
const bodyDocument = Array.from({ length: 14 }, () => '正文示例文字，用来测量对比度。Body text for measuring contrast.').join('\n\n');
/** The middle of a 440×586 card's content, clear of headers, footers and edge decorations. */
const bodyArea: Area = { x: 70, y: 200, width: 300, height: 220 };

interface Look {
  theme: string;
  mode?: string;
  label: string;
}

describe('themes', () => {
  let service: RunningService;
  let looks: Look[];
  before(async () => {
    service = await startService();
    looks = service.app.cards.themes.themes
      .filter((theme) => theme.builtin)
      .flatMap((theme) =>
        theme.modes.length > 0
          ? theme.modes.map((mode) => ({ theme: theme.id, mode, label: `${theme.id}/${mode}` }))
          : [{ theme: theme.id, label: theme.id }],
      );
  });
  after(async () => service.close());

  async function render(body: Record<string, unknown>): Promise<DecodedPng> {
    const { status, json } = await service.generate(body);
    assert.equal(status, 200, `${JSON.stringify(body).slice(0, 120)} → ${JSON.stringify(json)}`);
    return await decodePng((await download(json.images[0].url)).bytes);
  }

  it('lists the built-in themes with the modes and default mode of the spec', async () => {
    const response = await fetch(`${service.baseUrl}/api/themes`);
    assert.equal(response.status, 200);
    const { themes, aliases } = (await response.json()) as {
      themes: Array<{ id: string; className: string; name: string; modes: string[]; defaultMode: string | null; custom: boolean }>;
      aliases: Record<string, string>;
    };
    assert.deepEqual(themes.map((theme) => theme.id).sort(), Object.keys(specModes).sort(), 'the 23 themes of the spec');
    for (const theme of themes) {
      assert.ok(theme.id in specModes, `${theme.id} is a theme of the spec`);
      assert.deepEqual(theme.modes, specModes[theme.id], `modes of ${theme.id}`);
      assert.equal(theme.defaultMode, specModes[theme.id]![0] ?? null, `default mode of ${theme.id}`);
      assert.equal(theme.className, `card-${theme.id}`);
      assert.equal(theme.custom, false);
      assert.ok(theme.name.length > 0);
    }
    assert.deepEqual(aliases, themeAliases);
  });

  it('renders every theme and mode, and no two of them look alike', async () => {
    const images = new Map<string, DecodedPng>();
    for (const look of looks) {
      const png = await render({ markdown: sample, theme: look.theme, themeMode: look.mode, scale: 1, overHiddenMode: true });
      assert.deepEqual([png.width, png.height], [440, 586], look.label);
      images.set(look.label, png);
    }
    const labels = [...images.keys()];
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) {
        const differing = differingFraction(images.get(labels[i]!)!, images.get(labels[j]!)!);
        assert.ok(differing > 0.1, `${labels[i]} and ${labels[j]} differ in only ${(differing * 100).toFixed(1)}% of pixels`);
      }
    }
  });

  it('sets body text at WCAG AA contrast (4.5:1) in every theme and mode', async () => {
    const failures: string[] = [];
    for (const look of looks) {
      const png = await render({ markdown: bodyDocument, theme: look.theme, themeMode: look.mode, scale: 2, overHiddenMode: true });
      const { paper, ink, ratio } = paperAndInk(png, bodyArea, 2);
      if (ratio < 4.5) failures.push(`${look.label}: ink rgb(${ink}) on paper rgb(${paper}) is ${ratio.toFixed(2)}:1`);
    }
    assert.deepEqual(failures, []);
  });

  it('refuses an unknown theme with 400 naming every accepted theme and alias', async () => {
    const { status, json } = await service.generate({ theme: 'no-such-theme' });
    assert.equal(status, 400);
    assert.equal(json.error, 'invalid_request');
    assert.match(json.message, /no-such-theme/);
    for (const look of looks) assert.ok(json.message.includes(look.theme), `message lists ${look.theme}`);
    for (const alias of Object.keys(themeAliases)) assert.ok(json.message.includes(alias), `message lists alias ${alias}`);
  });

  it('draws a mode the theme does not have in its default mode, with a warning naming the modes of that theme', async () => {
    const { status, json } = await service.generate({ theme: 'pop-art', themeMode: 'dark-mode' });
    assert.equal(status, 200);
    assert.equal(json.images.length, 1);
    assert.match(json.warnings[0], /"dark-mode".*"pop-art".*default mode "default-mode"/);
    for (const mode of specModes['pop-art']!) assert.ok(json.warnings[0].includes(mode), `warning lists ${mode}`);

    const modeless = await service.generate({ theme: 'minimal', themeMode: 'dark-mode' });
    assert.equal(modeless.status, 200);
    assert.match(modeless.json.warnings[0], /"dark-mode" was ignored: theme "minimal" has no modes/);
  });

  it('resolves the aliases of the reference service to the same look', async () => {
    for (const [alias, target] of Object.entries(themeAliases)) {
      if (!service.app.cards.themes.get(target)) continue; // the target theme is not part of this build
      const markdown = `# ${alias}\n\n同一张卡片 same card ✨`;
      const viaAlias = await render({ markdown, theme: alias, scale: 1 });
      const direct = await render({ markdown, theme: target, scale: 1 });
      assert.equal(differingFraction(viaAlias, direct), 0, `${alias} renders as ${target}`);
    }
  });

  describe('glyph coverage', () => {
    const bundled = bundledFamilies();
    /** Chromium reports full face names ("Noto Sans SC Thin" for a variable face): match by prefix. */
    const isBundled = (family: string) => bundled.some((name) => family === name || family.startsWith(`${name} `));

    /** Chromium's report of the faces of every text run, for each card of `cards` laid out in one page (run.card is its index). */
    async function fontsOf(cards: Array<{ theme: Theme; mode: string | undefined }>, contentHtml: string): Promise<TextFonts[]> {
      return service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
        // One card per theme in one page: a run's faces depend on its characters and its block's
        // stack, not on the cards beside it, and one layout is many times cheaper than one each.
        await page.layout(cards.map(({ theme, mode }) => cardMarkup({ theme, mode, width: 440, height: 586, fixedHeight: false, contentHtml })).join(''));
        return textFonts(page);
      });
    }

    it('the sample holds Chinese, kana, Latin, digits and emoji', () => {
      for (const [name, pattern] of Object.entries({
        Chinese: /\p{Script=Han}/u,
        kana: /\p{Script=Hiragana}.*\p{Script=Katakana}/u,
        Latin: /[A-Za-z]/,
        digits: /[0-9]/,
        emoji: /\p{Extended_Pictographic}/u,
      })) {
        assert.match(sample, pattern, `sample has ${name}`);
      }
    });

    it('draws every text run of the sample, decorations included, with bundled fonts in every theme', async () => {
      const { html } = await renderMarkdown(sample);
      const cards = service.app.cards.themes.themes.flatMap((theme) => (theme.modes.length > 0 ? theme.modes : [undefined]).map((mode) => ({ theme, mode })));
      const runs = await fontsOf(cards, html);
      const problems: string[] = [];
      for (const [index, { theme, mode }] of cards.entries()) {
        const own = runs.filter((run) => run.card === index);
        assert.ok(own.length > 20, `${theme.id}: ${own.length} text runs measured`);
        for (const run of own) {
          const foreign = run.fonts.filter((font) => !font.isCustomFont || !isBundled(font.familyName));
          if (foreign.length > 0) problems.push(`${theme.id}/${mode ?? '-'} ${JSON.stringify(run.text.slice(0, 30))}: ${foreign.map((f) => f.familyName).join(', ')}`);
        }
      }
      assert.deepEqual(problems, []);
    });

    it('draws Chinese and kana with a CJK face, emoji with the colour emoji face, in every theme', async () => {
      const probes = { cjk: '汉字书法', kana: 'ひらがなカタカナ', emoji: '😀🎉👋🌿' };
      const html = Object.entries(probes).map(([name, text]) => `<p title="${name}">${text}</p>`).join('');
      const themes = service.app.cards.themes.themes;
      const runs = await fontsOf(themes.map((theme) => ({ theme, mode: theme.defaultMode })), html);
      for (const [index, theme] of themes.entries()) {
        const fontsFor = (text: string) => runs.find((run) => run.card === index && run.text === text)?.fonts.map((font) => font.familyName) ?? [];
        const emojiFonts = fontsFor(probes.emoji);
        assert.deepEqual(emojiFonts, ['Noto Color Emoji'], `${theme.id}: emoji drawn by ${emojiFonts}`);
        for (const text of [probes.cjk, probes.kana]) {
          const fonts = fontsFor(text);
          assert.ok(fonts.length > 0, `${theme.id}: "${text}" measured`);
          assert.ok(fonts.every((family) => /^(Noto Sans SC|Noto Serif SC|LXGW WenKai|Ma Shan Zheng|ZCOOL KuaiLe)/.test(family)), `${theme.id}: "${text}" drawn by ${fonts}`);
        }
      }
    });
  });

  describe('typesetting', () => {
    /** One card per built-in theme and mode with this content and footer, laid out in one page, and `script`'s answer about them. */
    async function inspect<T>(contentHtml: string, footerHtml: string, script: string, pageLabel?: string): Promise<T> {
      const cards = service.app.cards.themes.themes
        .filter((theme) => theme.builtin)
        .flatMap((theme) =>
          (theme.modes.length > 0 ? theme.modes : [undefined]).map((mode) => cardMarkup({ theme, mode, width: 440, height: 586, fixedHeight: false, contentHtml, footerHtml, pageLabel })),
        );
      return service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
        await page.layout(cards.join(''));
        return page.evaluate<T>(script);
      });
    }

    /**
     * What `perCard` finds wrong on each theme's card: page JavaScript run with the `card`, its
     * `theme` (the card's theme class) and a `problems` array to push to, which is returned.
     */
    function cardProblems(contentHtml: string, footerHtml: string, perCard: string, pageLabel?: string): Promise<string[]> {
      return inspect<string[]>(
        contentHtml,
        footerHtml,
        `(() => {
          const problems = [];
          for (const card of document.getElementById('cards').children) {
            const theme = card.className.split(' ')[2];
            ${perCard}
          }
          return problems;
        })()`,
        pageLabel,
      );
    }

    /**
     * Runs `check`, page JavaScript over `chip` (an image placeholder that `selector` matches), its
     * computed `style`, its `card` and the card's `theme`, on every theme's card; it pushes what is
     * wrong to `problems`, which is returned.
     */
    async function placeholderProblems(contentHtml: string, selector: string, check: string): Promise<string[]> {
      return cardProblems(
        contentHtml,
        '',
        `
          for (const chip of card.querySelectorAll(${JSON.stringify(selector)})) {
            const style = getComputedStyle(chip);
            ${check}
          }
        `,
      );
    }

    it('never slants CJK glyphs synthetically: in emphasis, in quotes and titles a theme sets in italics, in mixed-script blocks, covers and footers', async () => {
      const { html } = await renderMarkdown(
        [
          '> [!NOTE]\n> 这是一条提示 with some English words around it.',
          '> 引用 A quotation mostly in English with 中文 in it, *italic Latin* too.',
          '# 标题 A Mixed Title 混合',
          'Latin *italic Latin* and *强调* and <i>日本語テキスト</i> and *한국어*.',
        ].join('\n\n'),
      );
      const [cover] = coverDesigns({ text: '高效学习 Study Smarter Every Day', keywords: [], count: 1, width: 440, height: 586, format: 'png', scale: 1 });
      const footer = signatureHtml({ author: '码农阿杰 Ajie', handle: '@ajie.dev', signature: true });
      const { slanted, latin } = await inspect<{ slanted: string[]; latin: string[] }>(
        html + cover!.html,
        footer,
        `(() => {
          const slanted = [];
          const latin = [];
          for (const card of document.getElementById('cards').children) {
            const walker = document.createTreeWalker(card, NodeFilter.SHOW_TEXT);
            while (walker.nextNode()) {
              const text = walker.currentNode.textContent;
              const style = getComputedStyle(walker.currentNode.parentElement);
              // Italic asked for, and allowed to be faked: a CJK face (which has no italic) would be slanted.
              const faked = style.fontStyle !== 'normal' && style.fontSynthesisStyle !== 'none';
              if (faked && /[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}]/u.test(text)) slanted.push(card.className.split(' ')[2] + ': ' + text.slice(0, 24));
              // Latin emphasis a theme sets in italics may still be slanted when its face has no italic.
              if (walker.currentNode.parentElement.matches('p > em') && text === 'italic Latin' && style.fontStyle !== 'normal') latin.push(style.fontSynthesisStyle);
            }
          }
          return { slanted, latin };
        })()`,
      );
      assert.deepEqual(slanted, []);
      assert.ok(latin.length > 20 && latin.every((synthesis) => synthesis !== 'none'), `Latin emphasis stays italic: ${latin}`);
    });

    it('never justifies a Korean paragraph, which has only its spaces to stretch', async () => {
      // From biome's Korean README: justified, its lines opened gaps of a word's width.
      const { html } = await renderMarkdown('설치하지 않고 Biome을 사용해보고 싶다면, 웹 어셈블리로 컴파일된 온라인 플레이그라운드를 이용해보세요.');
      const justified = await inspect<string[]>(
        html,
        '',
        `Array.from(document.querySelectorAll('#cards .card-content-inner p')).filter((p) => getComputedStyle(p).textAlign === 'justify').map((p) => p.closest('.card').className.split(' ')[2])`,
      );
      assert.deepEqual(justified, []);
    });

    it('keeps inline images in their line: a row of badges stays a row, an icon in a sentence is the height of its line, an image alone is a block', async () => {
      const png = (rgb: [number, number, number], width: number, height: number) => `data:image/png;base64,${solidPng(width, height, rgb).toString('base64')}`;
      const badges = [png([220, 30, 30], 90, 20), png([30, 160, 30], 100, 20), png([30, 30, 220], 80, 20)].map((src, i) => `[![badge ${i}](${src})](https://example.com/${i})`).join(' ');
      const { html } = await renderMarkdown([badges, `Press the ![gear](${png([240, 140, 0], 64, 64)}) icon to open the settings.`, `![photo](${png([150, 0, 150], 300, 150)})`].join('\n\n'));
      const problems = await cardProblems(
        html,
        '',
        `
          const [row, sentence, alone] = card.querySelectorAll('.card-content-inner > p');
          const tops = [...row.querySelectorAll('img')].map((img) => Math.round(img.getBoundingClientRect().top));
          if (tops.length !== 3 || new Set(tops).size !== 1) problems.push(theme + ': badges at ' + tops);
          const icon = sentence.querySelector('img').getBoundingClientRect();
          const lineHeight = parseFloat(getComputedStyle(sentence).lineHeight);
          const text = document.createRange();
          text.selectNodeContents(sentence.firstChild);
          const words = text.getClientRects()[0];
          if (icon.height > lineHeight || icon.top > words.bottom || icon.bottom < words.top || icon.left < words.right) problems.push(theme + ': icon ' + icon.width + 'x' + icon.height + ' at ' + icon.top + ' beside words at ' + words.top + ', line ' + lineHeight);
          const photo = alone.querySelector('img');
          if (getComputedStyle(photo).display !== 'block' || photo.getBoundingClientRect().width < 200) problems.push(theme + ': the photo alone is ' + getComputedStyle(photo).display);
        `,
      );
      assert.deepEqual(problems, []);
    });

    it('draws the badges of a README in a row in the card image', async () => {
      const colours: Array<[number, number, number]> = [[220, 30, 30], [30, 160, 30], [30, 30, 220]];
      const markdown = colours.map((rgb, i) => `[![badge ${i}](data:image/png;base64,${solidPng(90, 20, rgb).toString('base64')})](https://example.com/${i})`).join(' ');
      for (const theme of ['notebook', 'cyberpunk', 'art-deco']) {
        const card = await render({ theme, markdown, scale: 1 });
        const rowsOf = colours.map((rgb) => {
          const rows = new Set<number>();
          for (let y = 0; y < card.height; y++) for (let x = 0; x < card.width; x++) if (pixel(card, x, y).every((v, i) => Math.abs(v - rgb[i]!) < 12)) rows.add(y);
          return rows;
        });
        for (const rows of rowsOf) assert.ok(rows.size >= 15 && rows.size <= 22, `${theme}: a badge ${rows.size} px tall`);
        const [first, ...others] = rowsOf.map((rows) => Math.min(...rows));
        for (const top of others) assert.ok(Math.abs(top - first!) <= 1, `${theme}: badges start at rows ${first} and ${top}`);
      }
    });

    it('ends an alt text too long for its line in an ellipsis, never cuts it through a letter', async () => {
      const { html } = await renderMarkdown(
        '[![A very long badge description that will never fit on one line of any card at all](https://nowhere.invalid/a.svg)](https://a) [![中文徽章说明文字很长很长很长很长很长很长很长很长很长很长很长很长](https://nowhere.invalid/b.svg)](https://b)',
      );
      const problems = await placeholderProblems(
        html,
        '.image-placeholder',
        `const cut = chip.scrollWidth > chip.clientWidth + 1;
        // text-overflow draws its ellipsis only in a block container (not in a flex or grid box).
        const ellipsis = style.textOverflow === 'ellipsis' && /^(block|inline-block|list-item|table-cell)$/.test(style.display);
        if (cut && !ellipsis) problems.push(theme + ': ' + chip.textContent.slice(0, 20) + ' cut in a ' + style.display + ' box');
        if (chip.getBoundingClientRect().right > card.querySelector('.card-content-inner').getBoundingClientRect().right + 1) problems.push(theme + ': a chip runs off the content');`,
      );
      assert.deepEqual(problems, []);
    });

    it("sets a missing badge's alt text as written in a title: not in the heading's capitals, tracking or weight", async () => {
      // A README's title with its badges (es-toolkit): art-deco's spaced capitals made each chip
      // wide enough to take a line of its own, and the title then had to be shrunk to fit a card.
      const { html } = await renderMarkdown('# es-toolkit &middot; [![MIT License](https://nowhere.invalid/a.svg)](https://a) [![codecov](https://nowhere.invalid/b.svg)](https://b)');
      const problems = await placeholderProblems(
        html,
        'h1 .image-placeholder',
        `if (style.textTransform !== 'none') problems.push(theme + ': ' + style.textTransform);
        if (style.letterSpacing !== 'normal') problems.push(theme + ': letter-spacing ' + style.letterSpacing);
        if (Number(style.fontWeight) > 400) problems.push(theme + ': weight ' + style.fontWeight);`,
      );
      assert.deepEqual(problems, []);
    });

    it('lays no copy of a heading over it when the heading holds inline code or a picture, which the copy cannot draw', async () => {
      // cyberpunk's glow and social-purple's outline are the heading's text (data-text) in its own face:
      // beside a code box they stood out of line with it, and over a badge that failed to load (its
      // alt text in a placeholder) they drew that text again, offset (prom-client's README title).
      for (const [markdown, copied] of [
        ['# 用 `git rebase` 整理提交历史，让代码评审更轻松', 'git rebase'],
        ['# Prometheus client for node.js [![Actions Status](https://nowhere.invalid/badge.svg)](https://example.com)', 'Prometheus'],
      ] as const) {
        const { html } = await renderMarkdown(markdown);
        const problems = await cardProblems(
          html,
          '',
          `
            const heading = card.querySelector('.card-content-inner h1');
            for (const pseudo of ['::before', '::after']) {
              const content = getComputedStyle(heading, pseudo).content;
              if (content.includes(${JSON.stringify(copied)})) problems.push(theme + pseudo + ' copies the heading');
            }
          `,
        );
        assert.deepEqual(problems, [], markdown);
      }
    });

    it('prints no word for a picture without alt text that failed: a block keeps a frame with the picture sign, one in a line is left out', async () => {
      const { html } = await renderMarkdown(
        [
          '![](https://nowhere.invalid/photo.jpg)',
          'Badges: [![](https://nowhere.invalid/a.svg)](https://a) [![build](https://nowhere.invalid/b.svg)](https://b) [![](https://nowhere.invalid/c.svg)](https://c)',
          '[![](https://nowhere.invalid/logo.svg)](https://example.com)',
          'Press the ![](https://nowhere.invalid/gear.png) icon.',
        ].join('\n\n'),
      );
      // The logo's link and paragraph held nothing else: they go with it.
      assert.doesNotMatch(html, /href="https:\/\/(a|c|example\.com)"/);
      const problems = await cardProblems(
        html,
        '',
        `
          const content = card.querySelector('.card-content-inner');
          const text = content.innerText.replace(/\\s+/g, ' ').trim();
          if (text !== 'Badges: build Press the icon.') problems.push(theme + ' reads: ' + text);
          const frames = [...content.querySelectorAll('.image-placeholder[aria-hidden="true"]')];
          if (frames.length !== 1) problems.push(theme + ': ' + frames.length + ' frames');
          for (const frame of frames) {
            const box = frame.getBoundingClientRect();
            const sign = getComputedStyle(frame, '::before').content;
            if (box.height < 60 || box.width < content.clientWidth / 2 || getComputedStyle(frame).visibility !== 'visible') problems.push(theme + ': the frame is ' + box.width + 'x' + box.height);
            if (sign !== '"🖼"') problems.push(theme + ': the frame says ' + sign);
          }
        `,
      );
      assert.deepEqual(problems, []);
    });

    it('fits the footer: a short signature whole, in the case it was written, and the page label on one line', async () => {
      const footer = signatureHtml({ author: '码农阿杰', handle: '@ajie.dev', signature: true });
      const problems = await cardProblems(
        '<p>正文</p>',
        footer,
        `
          for (const part of card.querySelectorAll('.card-footer .author-name, .card-footer .author-handle')) {
            if (part.scrollWidth > part.clientWidth + 1) problems.push(theme + ': ' + part.textContent + ' cut to ' + part.clientWidth + ' of ' + part.scrollWidth + ' px');
            if (getComputedStyle(part).textTransform !== 'none') problems.push(theme + ': ' + part.textContent + ' set in ' + getComputedStyle(part).textTransform);
          }
          const page = card.querySelector('.card-footer .page');
          const lines = new Set([...page.getClientRects()].map((rect) => Math.round(rect.top)));
          const range = document.createRange();
          range.selectNodeContents(page);
          const tops = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)));
          if (tops.size > 1 || lines.size > 1) problems.push(theme + ': page label "' + page.textContent + '" on ' + Math.max(tops.size, lines.size) + ' lines');
        `,
        '1/3',
      );
      assert.deepEqual(problems, []);
    });

    it('starts every card at its content box: no block keeps its top margin at the top of a card, in any theme or mode', async () => {
      // minimal, brand-a, brand-b, pop-art and japanese-magazine kept a heading's top margin there
      // (their `h2 { margin-top }` outweighed the base rule): a card continued under a heading
      // began 20-30 px down, on a card the pagination had measured without it, and at 200 x 200 the
      // heading was left alone on a card because the first table record no longer fitted under it.
      const problems: string[] = [];
      for (const first of ['<h1>Title</h1>', '<h2>Heading</h2>', '<h3>Heading</h3>', '<h4>Heading</h4>', '<blockquote><p>Quote</p></blockquote>', '<hr>', '<ul><li>item</li></ul>', '<pre><code>code</code></pre>']) {
        problems.push(
          ...(await inspect<string[]>(
            `${first}<p>after</p>`,
            '',
            `[...document.getElementById('cards').children].flatMap((card) => {
              const el = card.querySelector('.card-content-inner > :first-child');
              const margin = parseFloat(getComputedStyle(el).marginTop);
              return margin > 0.5 ? [card.className.split(' ').slice(1, 4).join(' ') + ': <' + el.tagName.toLowerCase() + '> ' + margin + ' px down'] : [];
            })`,
          )),
        );
      }
      assert.deepEqual(problems, []);
    });

    it('never wraps box drawings or aligned console output: each line stays one row, its type scaled to fit the block, its columns aligned', async () => {
      const table = ['┌──────────┬──────────┬──────────┬──────────┬──────────┐', '│ Name     │ Version  │ License  │ Size     │ Updated  │', '└──────────┴──────────┴──────────┴──────────┴──────────┘'];
      const listing = ['drwxr-xr-x  2 root root  4096 Nov 25 23:45 node_modules', '-rw-r--r--  1 root root 12034 Nov 25 23:45 package-lock.json-with-a-longer-name'];
      const { html } = await renderMarkdown(['```', ...table, '```', '', '```console', ...listing, '```', '', '```js', 'const ordinary = "code that is too long for the card still wraps at punctuation, like this";', '```'].join('\n'));
      const problems = await cardProblems(
        html,
        '',
        `
          const [box, console, ordinary] = card.querySelectorAll('pre');
          for (const pre of [box, console]) {
            const content = pre.getBoundingClientRect();
            for (const line of pre.querySelectorAll('.line')) {
              const rows = new Set([...line.getClientRects()].map((rect) => Math.round(rect.top)));
              const range = document.createRange();
              range.selectNodeContents(line);
              const textRows = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)));
              if (textRows.size > 1) problems.push(theme + ': "' + line.textContent.slice(0, 16) + '" wrapped onto ' + textRows.size + ' rows');
              if (range.getBoundingClientRect().right > content.right + 1) problems.push(theme + ': "' + line.textContent.slice(0, 16) + '" runs ' + Math.round(range.getBoundingClientRect().right - content.right) + ' px past its block');
            }
          }
          if (ordinary.querySelector('.line').getClientRects().length < 1 || ordinary.querySelector('.line').getBoundingClientRect().height < 40) problems.push(theme + ': ordinary code no longer wraps');
          // The table's columns line up: its rows of box drawings and of letters, all as many
          // characters long, are as wide as each other (a monospace face with box drawings).
          const widths = [...box.querySelectorAll('.line')].map((line) => {
            const range = document.createRange();
            range.selectNodeContents(line);
            return range.getBoundingClientRect().width;
          });
          if (Math.max(...widths) > Math.min(...widths) * 1.01) problems.push(theme + ': the rows of the box table are ' + widths.map(Math.round).join(', ') + ' px wide');
        `,
      );
      assert.deepEqual(problems, []);
    });
  });
});
