// Which @font-face rules a render page declares as markup brings it new characters
// (src/cards/render/page-fonts.ts), checked on the rules themselves: no browser. That the cards
// then draw every script with its bundled face is test/fonts-scripts.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cardMarkup } from '../src/cards/render/card-markup.js';
import { counterStyleCharacters } from '../src/cards/render/counter-styles.js';
import { PageFonts, shellFonts } from '../src/cards/render/page-fonts.js';
import { loadThemes } from '../src/cards/themes/registry.js';

/** The code points each declared face claims, by "family weight" (e.g. "Noto Sans Arabic 400"). */
function claims(rules: string): Map<string, Set<number>> {
  const byFace = new Map<string, Set<number>>();
  for (const rule of rules.match(/@font-face\s*{[^}]*}/g) ?? []) {
    const family = /font-family:\s*['"]?([^'";]+?)['"]?\s*;/.exec(rule)![1]!;
    const weight = /font-weight:\s*([^;}]+)/.exec(rule)?.[1]?.trim() ?? '400';
    const points = byFace.get(`${family} ${weight}`) ?? new Set<number>();
    for (const token of /unicode-range:\s*([^;}]+)/.exec(rule)![1]!.split(',')) {
      const [low, high = low] = token.trim().replace(/^U\+/i, '').split('-').map((hex) => parseInt(hex, 16));
      for (let point = low!; point <= high!; point++) points.add(point);
    }
    byFace.set(`${family} ${weight}`, points);
  }
  return byFace;
}

const points = (text: string) => [...text].map((character) => character.codePointAt(0)!);

describe('the faces a page declares as it sees new characters', () => {
  const shell = shellFonts('');

  it('declares an Arabic face whole the first time, so combining marks and new letters never declare it again', () => {
    // A page that drew كت, then كُتِبَ: the marks must come from the face that draws the letters
    // they sit on, or Chromium draws the whole word with a host font that has both. Declaring the
    // face again for them made Chromium load it again and lay the page out anew.
    const page = new PageFonts(shell);
    const arabic = claims(page.rulesFor('<p>كت</p>')).get('Noto Sans Arabic 400');
    assert.ok(arabic, 'the Arabic face is declared');
    for (const point of points('كتبُِ')) assert.ok(arabic.has(point), `U+${point.toString(16)} is claimed by the first declaration`);
    assert.ok(!claims(page.rulesFor('<p>كُتِبَ</p>')).has('Noto Sans Arabic 400'), 'the Arabic face is not declared again');
  });

  it('declares a Devanagari face whole, vowel signs and conjuncts with the first consonants', () => {
    const page = new PageFonts(shell);
    const devanagari = [...claims(page.rulesFor('<p>कम</p>'))].find(([face]) => face.startsWith('Noto Sans Devanagari'))?.[1];
    assert.ok(devanagari, 'the Devanagari face is declared');
    for (const point of points('कमिताब्षा')) assert.ok(devanagari.has(point), `U+${point.toString(16)} is claimed by the first declaration`);
    assert.ok(![...claims(page.rulesFor('<p>किताब क्षमा</p>')).keys()].some((face) => face.startsWith('Noto Sans Devanagari')), 'not declared again');
  });

  it('declares no face twice but the subsets of Chinese, Japanese and Korean characters, whatever text comes', () => {
    // Latin, Greek, Cyrillic, symbols and emoji in the order a page may meet them, after the shell's Latin-1.
    const texts = ['<p>π</p>', '<p>ő ł Ω</p>', '<p>Привет → ∑ ≠ ½</p>', '<p>😀 ✅ ★</p>', '<p>ἀρχή Ǆ ﬁ ∞</p>', '<p>😀👍🏽 ⌘ ✓</p>'];
    const page = new PageFonts(shell);
    const fileOf = (rule: string) => /url\(([^)]+)\)/.exec(rule)![1]!;
    const declaredFiles = (shell.rules.match(/@font-face\s*{[^}]*}/g) ?? []).filter((rule) => !/unicode-range:\s*U\+[0-9a-f]+;/i.test(rule)).map(fileOf);
    for (const text of texts) declaredFiles.push(...(page.rulesFor(text).match(/@font-face\s*{[^}]*}/g) ?? []).map(fileOf));
    const cjkSubset = /-(sc|tc|hk|jp|kr)-\d+-|wenkai.*subset|ma-shan-zheng-\d+|zcool-kuaile-\d+|-\d+-\d+-normal/i;
    const twice = declaredFiles.filter((file, index) => !cjkSubset.test(file) && declaredFiles.indexOf(file) !== index);
    assert.deepEqual([...new Set(twice)], []);
  });

  it('declares only the new characters of a Chinese face: they are drawn one by one', () => {
    // A character that the subset of Noto Sans SC holding 字 also holds, drawn first.
    const sansSc = shell.index.facesAt(0x5b57).find((face) => claims(shell.index.ruleFor(face, [0x5b57])).has('Noto Sans SC 400'))!;
    let neighbour = 0x4e00;
    while (!shell.index.facesAt(neighbour).includes(sansSc) || neighbour === 0x5b57) neighbour++;
    const page = new PageFonts(shell);
    page.rulesFor(`<p>${String.fromCodePoint(neighbour)}</p>`);
    const added = [...claims(page.rulesFor('<p>字</p>'))].filter(([, claimed]) => claimed.has(0x5b57));
    assert.ok(added.some(([face]) => face === 'Noto Sans SC 400'), '字 is declared');
    // A subset that also holds Latin letters or quotes (some Kai subsets do) is declared whole again.
    const han = /^\p{Script=Han}$/u;
    for (const [face, claimed] of added) {
      if ([...claimed].every((point) => han.test(String.fromCodePoint(point)))) assert.deepEqual([...claimed], [0x5b57], `${face} claims 字 alone`);
    }
  });

  it('declares nothing for characters the page has seen', () => {
    const page = new PageFonts(shell);
    page.rulesFor('<p>كُتِبَ 中文</p>');
    assert.equal(page.rulesFor('<p>كتب 文中</p>'), '');
  });
});

describe('the characters list numbers are drawn with', () => {
  it('are read from the counter styles a stylesheet names, wherever it names them', () => {
    assert.ok(counterStyleCharacters('li::before { content: counter(list-item, cjk-decimal) "、"; }').includes('四'));
    assert.ok(counterStyleCharacters('ol { list-style: cjk-ideographic inside; }').includes('萬'));
    assert.ok(counterStyleCharacters('ol { list-style-type: hiragana }').includes('ん'));
    assert.ok(counterStyleCharacters('li::before { content: counters(item, ".", lower-greek) }').includes('ω'));
    assert.equal(counterStyleCharacters('ol { list-style: decimal; } li::before { content: counter(item) }'), '', 'Latin-1 numbers the shell declares anyway');
  });

  it('have their faces declared in the shell when its own CSS numbers items so', () => {
    const shell = shellFonts('ol.cjk > li::before { content: counter(list-item, cjk-decimal); }');
    for (const point of points('〇一二三四五六七八九、')) assert.ok(shell.codePoints.has(point), `U+${point.toString(16)}`);
  });

  it('have their faces declared with the first cards of a theme that numbers its items so', () => {
    const shell = shellFonts('', [{ className: 'card-x', css: '.card-x ol > li::before { content: counter(list-item, cjk-decimal); }' }]);
    const numbers = points('〇一二三四五六七八九');
    assert.ok(!numbers.some((point) => shell.codePoints.has(point)), 'not in the shell');
    const claimed = new Set([...claims(new PageFonts(shell).rulesFor('<div class="card card-x"><ol><li>a</li></ol></div>')).values()].flatMap((set) => [...set]));
    for (const point of numbers) assert.ok(claimed.has(point), `U+${point.toString(16)}`);
  });
});

describe('the characters a theme draws', () => {
  // ❝ and ✦ drawn by a theme's decorations, ※ by another's; neither in any markup.
  const themes = [
    { className: 'card-quotes', css: '/* 引号 */ .card-quotes blockquote::before { content: "❝"; } .card-quotes h2::after { content: "\\2726"; }' },
    { className: 'card-notes', css: '.card-notes li::before { content: "※"; }' },
  ];
  const shell = shellFonts('', themes);
  const claimedBy = (rules: string) => new Set([...claims(rules).values()].flatMap((set) => [...set]));

  it('are not in the shell, nor the characters of its comments', () => {
    for (const point of points('❝✦※引号')) assert.ok(!shell.codePoints.has(point), `U+${point.toString(16)}`);
  });

  it('have their faces declared before the first cards of that theme, and only then', () => {
    const page = new PageFonts(shell);
    assert.equal(page.rulesFor('<div class="card card-quotes-like">text</div><p>quotes</p>'), '', 'another class, or none');
    const first = claimedBy(page.rulesFor('<div class="card markdown-body card-quotes light-mode"><blockquote>a</blockquote></div>'));
    for (const point of points('❝✦')) assert.ok(first.has(point), `U+${point.toString(16)} declared with the theme's first card`);
    assert.ok(!first.has(points('※')[0]!), 'not another theme\'s');
    assert.equal(page.rulesFor('<div class="card card-quotes">again</div>'), '', 'nothing again with its next cards');
    assert.ok(claimedBy(page.rulesFor('{"cardTemplate":"<div class=\\"card card-notes\\">"}')).has(points('※')[0]!), 'a script carrying the markup names the theme too');
  });

  it('of every built-in theme have their faces declared with its first card, as a shell with the theme\'s CSS declared them', () => {
    const { themes: builtin } = loadThemes(undefined);
    const shellOfAll = shellFonts('', builtin);
    const missing: string[] = [];
    for (const theme of builtin) {
      const inShell = claims(shellFonts(theme.css).rules);
      const card = cardMarkup({ theme, mode: theme.defaultMode, width: 440, height: 586, fixedHeight: true, contentHtml: '<p>a</p>' });
      const declared = claims(`${shellOfAll.rules}\n${new PageFonts(shellOfAll).rulesFor(card)}`);
      for (const [face, claimed] of inShell) {
        const lacking = [...claimed].filter((point) => !declared.get(face)?.has(point));
        if (lacking.length > 0) missing.push(`${theme.id}: ${face} ${lacking.map((point) => String.fromCodePoint(point)).join('')}`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
