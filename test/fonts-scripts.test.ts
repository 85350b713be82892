// Every script a card may hold is drawn by a bundled face, in themes of every kind of stack (sans,
// serif, Kai, brush, hand-drawn, poster, typewriter, tech): Chinese simplified and traditional,
// Japanese with half-width kana, Korean, Arabic, Hebrew, Thai, Devanagari, CJK Extension B names,
// Greek and Cyrillic, emoji. Chromium's own report (CDP CSS.getPlatformFontsForNode) names the
// faces: no host font, no missing glyph, and a title never mixes two Chinese faces. Hard-wrapped
// Chinese joins without spaces, and Arabic and Hebrew blocks run right to left.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';
import { cardMarkup } from '../src/cards/render/card-markup.js';
import type { CardBox } from '../src/cards/render/render-page.js';
import { inEachTheme, joinRuns, textFonts, type TextFonts } from './helpers/page-inspection.js';
import { fontFaceCss } from '../src/cards/themes/fonts.js';
import { bundledFamilies } from './helpers/bundled-fonts.js';
import { startService, type RunningService } from './helpers/service.js';

const samples: Record<string, string> = {
  'zh-Hans': '这是一段硬换行的中文，\n通常就是这样写的，\n编辑器在八十列处折行。',
  'zh-Hant': '# 繁體中文標題：臺灣鬱金香\n\n這是一段繁體中文，說明龜與鬱的寫法。',
  ja: '# 日本語の見出し\n\nひらがな、カタカナ、漢字と半角ｶﾀｶﾅ（ｱｲｳｴｵ ｶﾞｷﾞ）を含む文章です。',
  ko: '# 한국어 제목\n\n한국어 문장은 띄어쓰기를 합니다. 다람쥐 헌 쳇바퀴에 타고파.',
  ar: '# عنوان عربي\n\nهذه فقرة باللغة العربية تُكتب من اليمين إلى اليسار.\n\n- عنصر أول\n- عنصر ثانٍ\n\n> اقتباس عربي قصير.\n\n| المادة | السنة |\n|---|---|\n| الأولى | 1948 |',
  he: '# כותרת בעברית\n\nזוהי פסקה בעברית הנכתבת מימין לשמאל.\n\n> ציטוט קצר בעברית.',
  th: '# หัวข้อภาษาไทย\n\nภาษาไทยเป็นภาษาที่ไม่มีการเว้นวรรคระหว่างคำ',
  hi: '# हिन्दी शीर्षक\n\nयह हिन्दी में लिखा गया एक अनुच्छेद है।',
  'ext-b': '# 𠮷野家と𠀋\n\n人名用の漢字：𠀋 𡈽 𠮷。',
  'el-ru': 'Ελληνικά κείμενο και русский текст, ½ € → ✓ ⇗ ∮.',
  emoji: '表情 😀🎉👋🌿 and ✨ ❤️ 👍🏽 🇨🇳',
};

/** Themes that cover each kind of font stack of themes/_base.css. */
/** A title's face as the Big5 test sorts them (see there). */
interface TitleStyle {
  card: number;
  level: string;
  /** The title's stack leads (after a Latin display face) with the Kai face. */
  kai: boolean;
  weight: string;
  style: string;
}
const titleStyles = `[...document.querySelectorAll('#cards .card')].flatMap((card, index) => [...card.querySelectorAll('.card-content-inner :is(h1, h2)')].map((h) => {
  const style = getComputedStyle(h);
  return { card: index, level: h.tagName, kai: /^((Comic Neue|Bangers|Courier Prime|Special Elite), )*LXGW WenKai,/.test(style.fontFamily.replaceAll('"', '')), weight: style.fontWeight, style: style.fontStyle };
}))`;

const themeIds = ['minimal', 'traditional-chinese', 'social-purple', 'coil-notebook', 'pop-art', 'typewriter', 'darktech', 'art-deco', 'warm', 'japanese-magazine'];

const cjkFaces = /^(Noto Sans SC|Noto Serif SC|Noto Sans TC|Noto Serif TC|Noto Sans JP|Noto Sans HK|Noto Serif HK|LXGW WenKai|Ma Shan Zheng|ZCOOL KuaiLe)/;

/** Each bundled face's family and the code points it claims (undefined: all of them), read once. */
let bundledFaces: Array<{ name: string; ranges?: Array<[number, number]> }> | undefined;
function faces(): NonNullable<typeof bundledFaces> {
  bundledFaces ??= (fontFaceCss().match(/@font-face\s*{[^}]*}/g) ?? []).flatMap((face) => {
    const name = /font-family:\s*['"]?([^'";]+?)['"]?\s*;/.exec(face)?.[1];
    if (!name) return [];
    const ranges = /unicode-range:\s*([^;}]+)/.exec(face)?.[1];
    return [{ name, ranges: ranges?.split(',').map((token): [number, number] => {
      const [low, high] = token.trim().replace(/^U\+/i, '').split('-').map((hex) => parseInt(hex, 16));
      return [low!, high ?? low!];
    }) }];
  });
  return bundledFaces;
}

/** Whether a bundled face of `family` claims the code point in its unicode-range (so it has its glyph). */
function faceHas(family: string, codePoint: number): boolean {
  for (const { name, ranges } of faces()) {
    if (!(family === name || family.startsWith(`${name} `))) continue;
    if (!ranges) return true;
    if (ranges.some(([low, high]) => codePoint >= low && codePoint <= high)) return true;
  }
  return false;
}

describe('every script is drawn by a bundled face', () => {
  let service: RunningService;
  const bundled = bundledFamilies();
  const isBundled = (family: string) => bundled.some((name) => family === name || family.startsWith(`${name} `));
  before(async () => {
    service = await startService();
  });
  after(async () => service.close());

  async function inspect(themeId: string, markdown: string): Promise<{ runs: TextFonts[]; page: { joins: string[]; directions: Array<[string, string]> } }> {
    const theme = service.app.cards.themes.get(themeId)!;
    const { html } = await renderMarkdown(markdown);
    return service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
      await page.layout(cardMarkup({ theme, mode: theme.defaultMode ?? undefined, width: 440, height: 586, fixedHeight: false, contentHtml: html }));
      const runs = await textFonts(page);
      const facts = await page.evaluate<{ joins: string[]; directions: Array<[string, string]> }>(`(() => {
        const inner = document.querySelector('#cards .card-content-inner');
        return {
          joins: [...inner.querySelectorAll('p')].map((p) => p.innerText),
          directions: [...inner.querySelectorAll('p, h1, li, blockquote, td')].map((el) => [el.tagName + ' ' + el.textContent.trim().slice(0, 12), getComputedStyle(el).direction]),
        };
      })()`);
      return { runs, page: facts };
    });
  }

  /**
   * The fonts of every text run of `markdown` in each theme, the themes laid out as the cards of one
   * page: a run's faces depend on its characters and its block's stack, not on the cards beside it,
   * and one layout and one font report are several times cheaper than one per theme.
   */
  async function fontsByTheme(themes: string[], markdown: string): Promise<Map<string, TextFonts[]>> {
    const { html } = await renderMarkdown(markdown);
    const runs = await service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
      const cards = themes.map((themeId) => {
        const theme = service.app.cards.themes.get(themeId)!;
        return cardMarkup({ theme, mode: theme.defaultMode ?? undefined, width: 440, height: 586, fixedHeight: false, contentHtml: html });
      });
      await page.layout(cards.join(''));
      return textFonts(page);
    });
    return new Map(themes.map((themeId, index) => [themeId, runs.filter((run) => run.card === index)]));
  }

  it('names a bundled face for every text run, in every kind of stack', async () => {
    // Every sample in one document per theme: a run's faces depend on its characters and its
    // block's stack, not on its neighbours, and one layout per theme is ten times cheaper.
    // Compared without white space: hard-wrapped Chinese is joined, and phrase breaks cut text nodes.
    const compact = (text: string) => text.replace(/\s+/g, '');
    const scriptOf = (text: string) => Object.keys(samples).find((script) => compact(samples[script]!).includes(compact(text))) ?? 'decoration';
    const problems: string[] = [];
    const byTheme = await fontsByTheme(themeIds, Object.values(samples).join('\n\n'));
    for (const themeId of themeIds) {
      const runs = byTheme.get(themeId)!;
      const measured = new Set(runs.map((run) => scriptOf(run.text)));
      for (const script of Object.keys(samples)) assert.ok(measured.has(script), `${themeId} ${script}: text measured`);
      for (const run of runs) {
        const foreign = run.fonts.filter((font) => !font.isCustomFont || !isBundled(font.familyName));
        if (foreign.length > 0) problems.push(`${themeId} ${scriptOf(run.text)} ${JSON.stringify(run.text.slice(0, 24))}: ${foreign.map((font) => font.familyName).join(', ')}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('draws the numbers of a long ordered list with a bundled face in every theme', async () => {
    // traditional-chinese numbers its items 一, 二, 三 … (cjk-decimal): characters in no markup and
    // no stylesheet, so the page declared no face for them, and the fourth item showed an empty box.
    const list = Array.from({ length: 12 }, (_, index) => `${index + 1}. item`).join('\n');
    const byTheme = await fontsByTheme(themeIds, list);
    const problems: string[] = [];
    for (const themeId of themeIds) {
      const markers = byTheme.get(themeId)!.filter((run) => run.text.includes('of <li>'));
      assert.ok(markers.length >= 12, `${themeId}: every item's number measured (${markers.length})`);
      for (const run of markers) {
        const foreign = run.fonts.filter((font) => !font.isCustomFont || !isBundled(font.familyName));
        if (foreign.length > 0) problems.push(`${themeId} ${run.text}: ${foreign.map((font) => font.familyName).join(', ')}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('draws each Chinese or Japanese title with one CJK face, never two inside a word', async () => {
    const problems: string[] = [];
    let measured = 0;
    for (const script of ['zh-Hant', 'ja', 'ext-b']) {
      const byTheme = await fontsByTheme(themeIds, samples[script]!);
      for (const themeId of themeIds) {
        const runs = byTheme.get(themeId)!;
        const titles = samples[script]!.split('\n').filter((line) => line.startsWith('# ')).map((line) => line.slice(2));
        for (const run of joinRuns(runs, titles)) {
          // The Noto CJK faces (SC, TC, JP, KR) are one design: a kana or a name from another of them matches.
          const design = (family: string) => family.replace(/^Noto (Sans|Serif) (SC|TC|JP|HK|KR)\b.*$/, 'Noto $1 CJK').replace(/ (Regular|Bold|Thin|ExtraLight|Light|Medium|Black|ExtraBold|SemiBold)$/, '');
          const faces = new Set(run.fonts.map((font) => font.familyName).filter((family) => cjkFaces.test(family)).map(design));
          // Extension B names exist only in the Japanese face; they may differ from their neighbours.
          const tolerated = script === 'ext-b' ? 2 : 1;
          measured++;
          if (faces.size > tolerated) problems.push(`${themeId} ${script} ${JSON.stringify(run.text.slice(0, 16))}: ${[...faces].join(' + ')}`);
        }
      }
    }
    assert.ok(measured >= themeIds.length * 3, `${measured} titles measured`);
    assert.deepEqual(problems, []);
  });

  it('draws traditional Chinese titles of rounded and hand-drawn themes in the rounded face or the Kai face, never in a plain sans or serif', async () => {
    // ZCOOL KuaiLe draws only GB 2312: a traditional title gives way to LXGW WenKai, written by hand too.
    const markdown = '# 繁體中文標題：臺灣鬱金香\n\n## 龜與鬱的寫法\n\n### 學習筆記與觀察';
    const handFaces = /^(ZCOOL KuaiLe|LXGW WenKai)/;
    const problems: string[] = [];
    let measured = 0;
    for (const themeId of ['coil-notebook', 'pop-art', 'notebook', 'watercolor', 'fairytale']) {
      const theme = service.app.cards.themes.get(themeId)!;
      const { html } = await renderMarkdown(markdown);
      const runs = await service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
        await page.layout(cardMarkup({ theme, mode: theme.defaultMode ?? undefined, width: 440, height: 586, fixedHeight: false, contentHtml: html }));
        // The headings the theme letters in its rounded face (read with the traditional-Chinese mark lifted).
        const handHeadings = await page.evaluate<string[]>(`[...document.querySelectorAll('#cards .card-content-inner :is(h1, h2, h3)')].filter((h) => {
          const marked = h.closest('[data-han]');
          const mark = marked?.getAttribute('data-han');
          marked?.removeAttribute('data-han');
          const rounded = /KuaiLe/.test(getComputedStyle(h).fontFamily);
          marked?.setAttribute('data-han', mark);
          return rounded;
        }).map((h) => h.textContent)`);
        return joinRuns(await textFonts(page), handHeadings);
      });
      for (const run of runs) {
        measured++;
        const others = run.fonts.filter((font) => !handFaces.test(font.familyName));
        if (others.length > 0) problems.push(`${themeId} ${run.text}: ${others.map((font) => font.familyName).join(', ')}`);
      }
    }
    assert.ok(measured >= 5, `${measured} hand-drawn titles measured`);
    assert.deepEqual(problems, []);
  });

  it('draws every common traditional character (Big5 level 1) of a Kai, brush, rounded or typewriter title with the Kai face alone', async () => {
    // LXGW WenKai's webfont subsets left out some 300 of these (歿 紂 閂 浹 鄴 鯽 …): in a Kai
    // title they came from Noto Sans TC, a plain sans among brush strokes inside one word.
    const decoder = new TextDecoder('big5');
    let big5 = '';
    for (let lead = 0xa4; lead <= 0xc6; lead++) {
      for (let trail = 0x40; trail <= 0xfe; trail++) {
        if ((trail > 0x7e && trail < 0xa1) || (lead === 0xc6 && trail >= 0xa1)) continue;
        const character = decoder.decode(Uint8Array.of(lead, trail));
        if (/^\p{Script=Han}$/u.test(character)) big5 += character;
      }
    }
    assert.ok(big5.length > 5400, `${big5.length} characters`);
    // Which face draws a title's characters depends only on the face its stack leads with and the
    // title's weight and style: a Kai title of another theme with the same weight and style gets
    // the same faces. So the themes' titles are sorted into those kinds on a short sample (one
    // layout of every theme), and the 5,400 characters are laid out once per kind, in the first
    // theme that has it: each such layout loads some hundred font subsets.
    const kaiThemeIds = ['traditional-chinese', 'social-purple', 'coil-notebook', 'pop-art', 'notebook', 'typewriter'];
    // Characters from all over the list, so the sample reads as Traditional Chinese as the whole does.
    const sample = [...big5].filter((_, index) => index % 100 === 0).join('');
    const { html: sampleHtml } = await renderMarkdown(`# ${sample}\n\n## ${sample}`);
    const titles = await service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
      await page.layout(
        kaiThemeIds
          .map((themeId) => {
            const theme = service.app.cards.themes.get(themeId)!;
            return cardMarkup({ theme, mode: theme.defaultMode ?? undefined, width: 440, height: 586, fixedHeight: false, contentHtml: sampleHtml });
          })
          .join(''),
      );
      // The headings whose stack leads (after a Latin display face) with the Kai face.
      return page.evaluate<TitleStyle[]>(titleStyles);
    });
    const kaiTitles = titles.filter((title) => title.kai);
    assert.ok(kaiTitles.length >= 6, `${kaiTitles.length} Kai titles among the themes`);
    const kinds = new Map(kaiTitles.map((title) => [`${title.weight} ${title.style}`, title]));
    assert.ok(kinds.size >= 2, 'regular and bold Kai titles');
    const problems: string[] = [];
    for (const [kind, { card, level }] of kinds) {
      const theme = service.app.cards.themes.get(kaiThemeIds[card]!)!;
      const { html } = await renderMarkdown(`${level === 'H1' ? '#' : '##'} ${big5}`);
      const [styles, runs] = await service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
        await page.layout(cardMarkup({ theme, mode: theme.defaultMode ?? undefined, width: 440, height: 586, fixedHeight: false, contentHtml: html }));
        return [await page.evaluate<TitleStyle[]>(titleStyles), joinRuns(await textFonts(page), [big5])] as const;
      });
      assert.deepEqual(styles.map((title) => `${title.kai} ${title.weight} ${title.style}`), [`true ${kind}`], `${theme.id} ${level}: the whole list is set like the sample`);
      assert.equal(runs.length, 1, `${theme.id} ${level}: the title measured`);
      const others = runs[0]!.fonts.filter((font) => !font.familyName.startsWith('LXGW WenKai'));
      if (others.length > 0) problems.push(`${kind} (${theme.id} ${level}): ${others.map((font) => `${font.familyName} (${font.glyphCount} glyphs)`).join(', ')}`);
    }
    assert.deepEqual(problems, []);
  });

  it('draws the CJK Extension B characters of names with a face that has them, Japanese (JIS X 0213) and Hong Kong (HKSCS) alike', async () => {
    // Chromium reports a character no face has as drawn by the stack's first face (a tofu box);
    // so each character stands alone in a list item and the face named must claim it.
    // And the rare traditional characters (Big5 level 2) that the Noto TC and HK webfonts leave out.
    const names = [...'𠀋𡈽𠮷𡘙𥻗𦉘𨋢𠝹𡃁𤨒𢱑𣎴夃刌夗屳庂肊'];
    const problems: string[] = [];
    const byTheme = await fontsByTheme(themeIds, names.map((name) => `- ${name}`).join('\n'));
    for (const themeId of themeIds) {
      const runs = byTheme.get(themeId)!;
      for (const name of names) {
        const run = runs.find((candidate) => candidate.text === name);
        if (!run) problems.push(`${themeId} ${name}: not measured`);
        else if (!run.fonts.every((font) => faceHas(font.familyName, name.codePointAt(0)!))) problems.push(`${themeId} ${name}: ${run.fonts.map((font) => font.familyName).join(', ')} lacks it`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('draws every Korean word with the Korean face of its stack, never a Chinese face that has some Hangul', async () => {
    // LXGW WenKai, Noto Sans SC, ZCOOL KuaiLe … carry a few hundred Hangul syllables: a title in them
    // mixed two designs inside one word, with gaps where their widths differ.
    const problems: string[] = [];
    const byTheme = await fontsByTheme(themeIds, '# 세계인권선언발췌\n\n모든인간은태어날때부터자유로우며');
    for (const themeId of themeIds) {
      const runs = byTheme.get(themeId)!;
      const hangulRuns = runs.filter((run) => /^[\uac00-\ud7a3]+$/.test(run.text));
      assert.equal(hangulRuns.length, 2, `${themeId}: title and paragraph measured`);
      for (const run of hangulRuns) {
        const hangulFaces = run.fonts.filter((font) => !/^Noto (Sans|Serif) KR/.test(font.familyName));
        if (hangulFaces.length > 0) problems.push(`${themeId} ${JSON.stringify(run.text)}: ${run.fonts.map((font) => `${font.familyName} (${font.glyphCount})`).join(' + ')}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('breaks Korean lines between words, never inside one', async () => {
    const markdown = '모든 사람은 인종, 피부색, 성, 언어, 종교, 정치적 또는 기타의 견해, 민족적 또는 사회적 출신, 재산, 출생 또는 기타의 지위 등에 따른 어떠한 종류의 차별이 없이, 이 선언에 규정된 모든 권리와 자유를 향유할 자격이 있다.';
    for (const themeId of ['minimal', 'coil-notebook', 'traditional-chinese']) {
      const theme = service.app.cards.themes.get(themeId)!;
      const { html } = await renderMarkdown(markdown);
      const split = await service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
        await page.layout(cardMarkup({ theme, mode: theme.defaultMode ?? undefined, width: 440, height: 586, fixedHeight: false, contentHtml: html }));
        return page.evaluate<{ lines: number; split: string[] }>(`(() => {
          const text = document.querySelector('#cards .card-content-inner p').firstChild;
          const range = document.createRange();
          const split = [];
          const tops = new Set();
          for (const match of text.data.matchAll(/\\S+/g)) {
            range.setStart(text, match.index);
            range.setEnd(text, match.index + match[0].length);
            const rows = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
            rows.forEach((top) => tops.add(top));
            if (rows.size > 1) split.push(match[0]);
          }
          return { lines: tops.size, split };
        })()`);
      });
      assert.ok(split.lines >= 3, `${themeId}: the paragraph wraps (${split.lines} lines)`);
      assert.deepEqual(split.split, [], `${themeId}: words broken across lines`);
    }
  });

  it('never begins a Thai line with the repetition mark ๆ, cut from the word it repeats', async () => {
    // Thai writes a space before ๆ; at a width where the line ended at that space, ๆ stood alone.
    const markdown = fs.readFileSync(new URL('./fixtures/corpus/th.md', import.meta.url), 'utf8');
    assert.ok(markdown.includes(' ๆ'), 'the text writes ๆ after a space');
    const stranded: string[] = [];
    let marks = 0;
    for (const width of [360, 400, 440, 480, 520]) {
      const theme = service.app.cards.themes.get('notebook')!;
      const { html } = await renderMarkdown(markdown);
      const found = await service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
        await page.layout(cardMarkup({ theme, mode: theme.defaultMode ?? undefined, width, height: 586, fixedHeight: false, contentHtml: html }));
        return page.evaluate<{ marks: number; stranded: string[] }>(`(() => {
          const range = document.createRange();
          const walker = document.createTreeWalker(document.querySelector('#cards .card-content-inner'), NodeFilter.SHOW_TEXT);
          const result = { marks: 0, stranded: [] };
          for (let text = walker.nextNode(); text; text = walker.nextNode()) {
            for (const match of text.data.matchAll(/ๆ/g)) {
              result.marks++;
              const word = text.data.slice(0, match.index).search(/\\S\\s*$/);
              if (word < 0) continue;
              range.setStart(text, word); range.setEnd(text, word + 1);
              const before = range.getClientRects()[0];
              range.setStart(text, match.index); range.setEnd(text, match.index + 1);
              const mark = range.getClientRects()[0];
              if (before && mark && Math.abs(before.top - mark.top) > 4) result.stranded.push(text.data.slice(Math.max(0, match.index - 12), match.index + 1));
            }
          }
          return result;
        })()`);
      });
      marks += found.marks;
      for (const text of found.stranded) stranded.push(`${width} px: …${text}`);
    }
    assert.ok(marks >= 5, `${marks} marks measured`);
    assert.deepEqual(stranded, []);
  });

  it('joins hard-wrapped Chinese lines without a space, and keeps spaces where Latin meets CJK', async () => {
    const { page } = await inspect('minimal', `${samples['zh-Hans']}\n\nEnglish words\n中文接着写，then\nEnglish again.`);
    assert.equal(page.joins[0], '这是一段硬换行的中文，通常就是这样写的，编辑器在八十列处折行。');
    assert.equal(page.joins[1], 'English words 中文接着写，then English again.');
  });

  it('lays out Arabic and Hebrew paragraphs, lists and quotes right to left', async () => {
    for (const script of ['ar', 'he']) {
      const { page } = await inspect('minimal', samples[script]!);
      for (const [what, direction] of page.directions) assert.equal(direction, 'rtl', `${script}: ${what}`);
    }
    const { page } = await inspect('minimal', 'Left to right text.');
    assert.equal(page.directions[0]![1], 'ltr');
  });

  /** `script` evaluated for each theme's card of `html` (helpers/page-inspection.ts), by theme id. */
  async function inEveryTheme<T>(html: string, script: string): Promise<Array<[string, T]>> {
    const themes = service.app.cards.themes.themes;
    const answers = await inEachTheme<T>(service, themes, html, script);
    return themes.map((theme, index) => [theme.id, answers[index]!]);
  }

  it('mirrors right-to-left headings: label headings stand at the right, start borders on the right', async () => {
    const { html } = await renderMarkdown('# כותרת\n\n## כותרת שנייה\n\nטקסט.\n\n### כותרת שלישית\n\nטקסט.');
    const problems: string[] = [];
    const byTheme = await inEveryTheme<Array<{ tag: string; gapAtRight: number; gapAtLeft: number; leftBorder: number; rightBorder: number }>>(html, `(() => {
      const inner = card.querySelector('.card-content-inner');
      const box = inner.getBoundingClientRect();
      const cs = getComputedStyle(inner);
      return [...inner.querySelectorAll('h1, h2, h3')].map((h) => {
        const r = h.getBoundingClientRect();
        return { tag: h.tagName, gapAtRight: box.right - parseFloat(cs.paddingRight) - r.right, gapAtLeft: r.left - box.left - parseFloat(cs.paddingLeft), leftBorder: parseFloat(getComputedStyle(h).borderLeftWidth), rightBorder: parseFloat(getComputedStyle(h).borderRightWidth) };
      });
    })()`);
    for (const [themeId, headings] of byTheme) {
      for (const heading of headings) {
        const centred = Math.abs(heading.gapAtRight - heading.gapAtLeft) < 4;
        if (heading.gapAtRight > 10 && !centred) problems.push(`${themeId} ${heading.tag}: ${Math.round(heading.gapAtRight)} px short of the right edge`);
        if (heading.leftBorder > heading.rightBorder) problems.push(`${themeId} ${heading.tag}: its start border is on the left`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('mirrors right-to-left quotes and lists in every theme: each is the mirror image of its left-to-right self', async () => {
    const { html } = await renderMarkdown('# عنوان عربي\n\n> اقتباس عربي قصير يمتد على سطر.\n\n## عنوان فرعي\n\n- عنصر أول\n- عنصر ثانٍ\n\n### عنوان ثالث\n\n1. خطوة أولى\n2. خطوة ثانية');
    const problems: string[] = [];
    // Each card turns its own blocks left to right after measuring them right to left.
    const byTheme = await inEveryTheme<string[]>(html, `(() => {
      const inner = card.querySelector('.card-content-inner');
      const px = (value) => parseFloat(value) || 0;
      const blocks = [['quote', inner.querySelector('blockquote')]];
      for (const list of inner.querySelectorAll('ul, ol')) blocks.push([list.tagName, list], [list.tagName + ' item', list.querySelector('li')]);
      // Headings' marks and rules too; where a shrink-to-fit heading stands is the heading test's.
      for (const heading of inner.querySelectorAll('h1, h2, h3')) blocks.push([heading.tagName, heading]);
      // What a block draws on each side: borders, indents, stripes and glows, gradients, and the
      // boxes of its ::before and ::after, as seen from the left and from the right.
      const sides = (el) => {
        const s = getComputedStyle(el);
        const box = el.getBoundingClientRect();
        const pseudos = ['::before', '::after'].map((pseudo) => {
          const p = getComputedStyle(el, pseudo);
          if (p.content === 'none' || p.content === 'normal' || p.position !== 'absolute') return null;
          const width = px(p.width) + (p.boxSizing === 'border-box' ? 0 : px(p.paddingLeft) + px(p.paddingRight) + px(p.borderLeftWidth) + px(p.borderRightWidth));
          return Math.round(px(p.left) + px(p.marginLeft) + width / 2);
        });
        return {
          direction: s.direction,
          width: Math.round(box.width),
          left: [s.borderLeftWidth, s.paddingLeft, s.marginLeft].map(px),
          right: [s.borderRightWidth, s.paddingRight, s.marginRight].map(px),
          // Inset stripes and sideways glows (no vertical offset) belong to a side; drop shadows to the light.
          shadows: s.boxShadow.split(/,(?![^(]*\\))/).map((shadow) => shadow.replace(/rgba?\\([^)]*\\)/, '').trim().split(/\\s+/))
            .filter((parts) => parts.includes('inset') || px(parts[1]) === 0).map((parts) => px(parts[0])),
          // Sideways gradients, but not those that read the same both ways (stops a palindrome).
          angles: [...s.backgroundImage.matchAll(/linear-gradient\\((-?[\\d.]+)deg, ((?:[^()]|\\([^()]*\\))*)\\)/g)]
            .filter((m) => { const stops = m[2].split(/,(?![^(]*\\))/).map((stop) => stop.trim()); return stops.join() !== [...stops].reverse().join(); })
            .map((m) => px(m[1])),
          across: [...s.backgroundImage.matchAll(/ at (-?[\\d.]+)%/g)].map((m) => px(m[1])),
          pseudos,
        };
      };
      const rtl = blocks.map(([, el]) => sides(el));
      for (const el of inner.querySelectorAll('[dir]')) el.setAttribute('dir', 'ltr');
      const ltr = blocks.map(([, el]) => sides(el));
      const wrong = [];
      blocks.forEach(([what], i) => {
        const r = rtl[i], l = ltr[i];
        const near = (a, b) => Math.abs(a - b) <= 2;
        if (r.direction !== 'rtl') wrong.push(what + ': laid out ' + r.direction);
        const sides = /^H/.test(what) ? 2 : 3;
        if (!r.left.slice(0, sides).every((v, k) => near(v, l.right[k])) || !r.right.slice(0, sides).every((v, k) => near(v, l.left[k]))) wrong.push(what + ': border, padding or margin not mirrored (left ' + r.left + ' right ' + r.right + ')');
        if (!r.shadows.every((x, k) => near(x, -l.shadows[k]))) wrong.push(what + ': shadow not mirrored (' + r.shadows + ')');
        // A heading's two-colour gradient is a brand colour, not a side: only quotes and lists are held to it.
        if (!/^H/.test(what) && !r.angles.every((a, k) => near((a + 360) % 360, (360 - l.angles[k]) % 360) || near(a, 180) || near(a, 0))) wrong.push(what + ': gradient not mirrored (' + r.angles + 'deg)');
        if (!/^H/.test(what) && !r.across.every((x, k) => near(x, 100 - l.across[k]))) wrong.push(what + ': radial gradient not mirrored (at ' + r.across + '%)');
        r.pseudos.forEach((centre, k) => {
          if (centre !== null && !near(centre, r.width - l.pseudos[k])) wrong.push(what + (k ? '::after' : '::before') + ': not mirrored (centre ' + centre + ' of ' + r.width + ' px, left to right ' + l.pseudos[k] + ' of ' + l.width + ')');
        });
      });
      return wrong;
    })()`);
    for (const [themeId, found] of byTheme) for (const problem of found) problems.push(`${themeId} ${problem}`);
    assert.deepEqual(problems, []);
  });

  it('draws every heading decoration of every theme right to left as the mirror image of its left-to-right self (pixels)', async () => {
    // Bars under a title's start, leaves and strokes that begin a rule, painted as backgrounds or
    // ::after boxes: no box test sees where a background image stands, the picture does. Only the
    // headings are painted (the card and the rest hidden, the headings' own letters transparent),
    // right to left and then left to right; where each heading's ink lies (its centroid about the
    // text column's centre line) must mirror.
    const markdown = '# عنوان المقالة الرئيسي\n\nفقرة عربية قصيرة.\n\n## עברית: כותרת משנה\n\nפסקה קצרה.\n\n### عنوان ثالث صغير\n\nفقرة.';
    const { html } = await renderMarkdown(markdown);
    const problems: string[] = [];
    // Every theme's card laid out in one page (a theme's rules apply to its own card alone), each
    // card captured right to left, then each again left to right.
    const themes = service.app.cards.themes.themes;
    const drawn = await service.app.cards.renderer.run(AbortSignal.timeout(120_000), async (page) => {
      await page.layout(themes.map((theme) => cardMarkup({ theme, mode: theme.defaultMode ?? undefined, width: 440, height: 586, fixedHeight: false, contentHtml: html })).join(''));
      const geometries = await page.evaluate<Array<{ axis: number; rows: Array<[string, number, number]> }>>(`(() => {
          const style = document.createElement('style');
          style.id = 'headings-alone';
          style.textContent = '#cards .card, #cards .card *, #cards .card::before, #cards .card::after, #cards .card *::before, #cards .card *::after { visibility: hidden !important; }'
            + ' #cards .card-content-inner :is(h1, h2, h3), #cards .card-content-inner :is(h1, h2, h3) * { visibility: visible !important; }'
            + ' #cards .card-content-inner :is(h1, h2, h3)::before, #cards .card-content-inner :is(h1, h2, h3)::after, #cards .card-content-inner :is(h1, h2, h3) *::before, #cards .card-content-inner :is(h1, h2, h3) *::after { visibility: visible !important; }'
            + ' .heading-letters { color: transparent !important; -webkit-text-fill-color: transparent !important; text-shadow: none !important; }';
          document.head.append(style);
          return [...document.querySelectorAll('#cards > .card')].map((cardElement) => {
            const card = cardElement.getBoundingClientRect();
            const inner = cardElement.querySelector('.card-content-inner');
            const box = inner.getBoundingClientRect();
            const cs = getComputedStyle(inner);
            const headings = [...inner.querySelectorAll('h1, h2, h3')];
            for (const heading of headings) {
              for (const text of [...heading.childNodes].filter((node) => node.nodeType === 3)) {
                const letters = document.createElement('span');
                letters.className = 'heading-letters';
                text.replaceWith(letters);
                letters.append(text);
              }
            }
            return {
              axis: (box.left + parseFloat(cs.paddingLeft) + box.right - parseFloat(cs.paddingRight)) / 2 - card.left,
              rows: headings.map((h) => { const r = h.getBoundingClientRect(); return [h.tagName, Math.max(0, Math.floor(r.top - card.top - 12)), Math.ceil(r.bottom - card.top + 12)]; }),
            };
          });
        })()`);
      // Where each card is now, in the page's coordinates (turning the text left to right may move the cards below).
      const cardBoxes = () =>
        page.evaluate<CardBox[]>(`[...document.querySelectorAll('#cards > .card')].map((card) => { const box = card.getBoundingClientRect(); return { x: box.left + window.scrollX, y: box.top + window.scrollY, width: box.width, height: box.height }; })`);
      const captureEach = async () => {
        const images: Buffer[] = [];
        for (const box of await cardBoxes()) images.push(await page.capture(box, { scale: 1, format: 'png' }));
        return images;
      };
      try {
        const rtl = await captureEach();
        await page.evaluate(`document.querySelectorAll('#cards [dir]').forEach((el) => el.setAttribute('dir', 'ltr'))`);
        const ltr = await captureEach();
          return themes.map((theme, index) => ({ themeId: theme.id, geometry: geometries[index]!, rtl: rtl[index]!, ltr: ltr[index]! }));
      } finally {
        // The page is the service's own, shared with the next test files (test/lanes.mjs): the
        // style that hides all but the headings must not outlive this test.
        await page.evaluate(`document.getElementById('headings-alone').remove()`);
      }
    });
    assert.equal(drawn.length, themes.length, 'a card for every theme');
    for (const found of drawn) {
      // The horizontal centre of the ink (darkness against white) in each heading's rows.
      const centroids = async (png: Buffer) => {
        const { data, info } = await sharp(png).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
        return found.geometry.rows.map(([, top, bottom]) => {
          let mass = 0;
          let moment = 0;
          for (let y = top; y < Math.min(bottom, info.height); y++) {
            for (let x = 0; x < info.width; x++) {
              const i = (y * info.width + x) * 3;
              const ink = 765 - data[i]! - data[i + 1]! - data[i + 2]!;
              mass += ink;
              moment += ink * x;
            }
          }
          return { mass, x: mass > 0 ? moment / mass - found.geometry.axis : 0 };
        });
      };
      const [rtl, ltr] = [await centroids(found.rtl), await centroids(found.ltr)];
      found.geometry.rows.forEach(([tag], k) => {
        const right = rtl[k]!;
        const left = ltr[k]!;
        if (left.mass < 765 * 20) return; // nothing drawn but the (hidden) letters
        // A few px of play: a drop shadow keeps its light, a glyph (✎ ✦) is not its own mirror image.
        if (Math.abs(right.x + left.x) > 8) problems.push(`${found.themeId} ${tag}: ink centred ${right.x.toFixed(1)} px from the centre line right to left, ${left.x.toFixed(1)} px left to right`);
      });
    }
    assert.deepEqual(problems, []);
  });

  it('never slants or emboldens CJK text synthetically, and balances titles, in themes with italic quotes and titles', async () => {
    const markdown = '# 一个很长很长的标题用来测试平衡换行的效果如何呢\n\n正文里的*强调*。\n\n> 引用的中文段落，主题把引用设为斜体。';
    for (const themeId of ['art-deco', 'dreamy', 'plain-notes', 'typewriter', 'watercolor', 'pop-art']) {
      const theme = service.app.cards.themes.get(themeId)!;
      const { html } = await renderMarkdown(markdown);
      const styles = await service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
        await page.layout(cardMarkup({ theme, mode: theme.defaultMode ?? undefined, width: 440, height: 586, fixedHeight: false, contentHtml: html }));
        return page.evaluate<Record<string, string>>(`(() => {
          const inner = document.querySelector('#cards .card-content-inner');
          const slanted = (el) => { const s = getComputedStyle(el); return s.fontStyle !== 'normal' && s.fontSynthesisStyle !== 'none'; };
          const cjkEm = inner.querySelector('em .cjk-em');
          return {
            quote: slanted(inner.querySelector('blockquote p')) ? 'slanted' : 'upright',
            emphasis: cjkEm && !slanted(cjkEm) && getComputedStyle(cjkEm).textEmphasisStyle !== 'none' ? 'upright with dots' : 'slanted or plain',
            bold: getComputedStyle(inner.querySelector('h1')).fontSynthesisWeight,
            title: getComputedStyle(inner.querySelector('h1')).textWrapStyle,
          };
        })()`);
      });
      assert.deepEqual(styles, { quote: 'upright', emphasis: 'upright with dots', bold: 'none', title: 'balance' }, themeId);
    }
  });

  it('never slants Arabic or Hebrew text synthetically, in themes with italic quotes and titles', async () => {
    const markdown = '# عنوان المقالة\n\n## כותרת משנה\n\n> اقتباس عربي قصير، والسمة تجعل الاقتباس مائلاً.\n\n> ציטוט קצר בעברית.';
    let italic = 0;
    for (const themeId of ['art-deco', 'dreamy', 'plain-notes', 'typewriter', 'watercolor']) {
      const theme = service.app.cards.themes.get(themeId)!;
      const { html } = await renderMarkdown(markdown);
      const slanted = await service.app.cards.renderer.run(AbortSignal.timeout(60_000), async (page) => {
        await page.layout(cardMarkup({ theme, mode: theme.defaultMode ?? undefined, width: 440, height: 586, fixedHeight: false, contentHtml: html }));
        return page.evaluate<{ italic: number; slanted: string[] }>(`(() => {
          const blocks = [...document.querySelectorAll('#cards .card-content-inner :is(h1, h2, blockquote p)')];
          return {
            italic: blocks.filter((el) => getComputedStyle(el).fontStyle !== 'normal').length,
            slanted: blocks.filter((el) => { const s = getComputedStyle(el); return s.fontStyle !== 'normal' && s.fontSynthesisStyle !== 'none'; })
              .map((el) => el.tagName + ' ' + el.textContent.slice(0, 12)),
          };
        })()`);
      });
      italic += slanted.italic;
      assert.deepEqual(slanted.slanted, [], themeId);
    }
    assert.ok(italic >= 5, `${italic} blocks the themes set in italic`);
  });

  it('draws the footnote back-link as a text arrow, not a colour emoji', async () => {
    const { runs } = await inspect('minimal', 'Text[^1]\n\n[^1]: A note.');
    const arrow = runs.find((run) => run.text.trim() === '↑');
    assert.ok(arrow, 'back-link measured');
    assert.ok(arrow.fonts.every((font) => font.isCustomFont && font.familyName.startsWith('Noto Sans SC')), `drawn by ${arrow.fonts.map((font) => font.familyName)}`);
  });
});
