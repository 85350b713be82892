// Where a line of Chinese or Japanese may break. Chromium breaks CJK text between any two
// characters (its own phrase breaking, `word-break: auto-phrase`, covers Japanese only), which
// splits words ("自/由") and leaves one character alone on a paragraph's last line. Here a break
// is allowed only where two segmenters agree: BudouX (a small model of phrases, one per language)
// and ICU's dictionary word segmenter (Intl.Segmenter). Each alone errs: BudouX's Chinese model cuts
// some words ("小技|巧"), ICU cuts names and compounds that BudouX keeps ("小|红|书"). A book title
// 《…》 short enough for a line stays whole, and a block's last few characters stay together, so
// no line ends a paragraph with one or two characters. The page then breaks only at these points
// (`word-break: keep-all` plus <wbr>), and inside a phrase only when it is wider than the line
// (`overflow-wrap: anywhere`). docs/themes.md#line-breaks tells the whole rule.
import { createRequire } from 'node:module';
import path from 'node:path';
import { gb2312Han } from './han-repertoire.js';

type Budoux = typeof import('budoux');
type Model = Budoux['jaModel'];

// The package's entry point also loads its HTML processor and, with it, a DOM implementation
// (about 300 ms per Markdown worker); the parser and its models alone load in about 30 ms.
const requireFromHere = createRequire(import.meta.url);
const budouxDir = path.dirname(requireFromHere.resolve('budoux'));
const { Parser } = requireFromHere(path.join(budouxDir, 'parser.js')) as Pick<Budoux, 'Parser'>;
const modelFiles = { ja: 'ja.js', 'zh-hans': 'zh-hans.js', 'zh-hant': 'zh-hant.js' } as const;
type Language = keyof typeof modelFiles;

const parsers = new Map<Language, InstanceType<Budoux['Parser']>>();
function parserFor(language: Language) {
  let parser = parsers.get(language);
  if (!parser) {
    const { model } = requireFromHere(path.join(budouxDir, 'data', 'models', modelFiles[language])) as { model: Model };
    parser = new Parser(model);
    parsers.set(language, parser);
  }
  return parser;
}

// Made on first use: each loads ICU's dictionary for its script, about 10 ms of CPU, which every
// thread that imports this module (the main thread and each Markdown worker) paid at start-up
// whether or not a document ever had Chinese or Japanese text.
const wordSegmenters = new Map<'ja' | 'zh', Intl.Segmenter>();
function wordSegmenterFor(language: 'ja' | 'zh'): Intl.Segmenter {
  const segmenter = wordSegmenters.get(language) ?? new Intl.Segmenter(language, { granularity: 'word' });
  wordSegmenters.set(language, segmenter);
  return segmenter;
}

/** Han, kana and bopomofo: the letters a CJK line may break between. */
const cjkLetter = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}]/u;
/** What may stand on either side of a phrase break: CJK letters, CJK and full-width punctuation. */
const wide = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}\u3000-\u303f\uff00-\uff60\uffe0-\uffe6\u30fc\u2014\u2026]/u;
const kana = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const han = /\p{Script=Han}/u;
const space = /\s/u;

/** Whether `text` has any Chinese or Japanese letter (the segmenters are not run on text without). */
export const hasCjkLetters = (text: string) => cjkLetter.test(text);
const hangul = /\p{Script=Hangul}/u;
/** Whether the lines of `text` are shaped here: Chinese and Japanese are segmented, Korean has its end held together. */
export const hasEastAsianLetters = (text: string) => cjkLetter.test(text) || hangul.test(text);

/**
 * The language of a document (or of a cover's text), for its runs without kana: Japanese when kana
 * are at least a quarter of its CJK letters, as in running Japanese text (a Japanese heading may be
 * all kanji, "世界人権宣言"; a Chinese text may quote a Japanese sentence); traditional Chinese
 * when more than one Han character in ten is outside GB 2312 (common traditional forms such as
 * 們 這 說 are); otherwise simplified Chinese.
 */
export function cjkLanguage(text: string): Language {
  const simplified = gb2312Han();
  let kanaCount = 0;
  let hanCount = 0;
  let outside = 0;
  for (const character of text) {
    // CJK letters are all at U+2E80 or above: most of the rest is passed without a regular expression.
    if (character < '\u2e80') continue;
    if (kana.test(character)) kanaCount++;
    else if (han.test(character)) {
      hanCount++;
      if (!simplified.has(character)) outside++;
    }
  }
  if (kanaCount > 0 && kanaCount * 4 >= kanaCount + hanCount) return 'ja';
  return outside * 10 > hanCount ? 'zh-hant' : 'zh-hans';
}

/** Book and article titles: kept on one line when no longer than `longestTitle` characters. */
const titleOpen = new Map([['《', '》'], ['〈', '〉']]);
const longestTitle = 16;

/** Offsets inside a short 《title》 or 〈title〉, where no phrase break goes. */
function insideTitles(text: string): Set<number> {
  const inside = new Set<number>();
  for (let start = 0; start < text.length; start++) {
    const close = titleOpen.get(text[start]!);
    if (!close) continue;
    const end = text.indexOf(close, start + 1);
    if (end === -1 || end - start > longestTitle) continue;
    for (let offset = start + 1; offset <= end; offset++) inside.add(offset);
    start = end;
  }
  return inside;
}

/** Characters the last line of a block holds at least: a line of one or two reads as a mistake. */
const lastLineMinimum = 3;
/** What the held end counts as letters: not punctuation, nor a tilde (吧～) or an emoji (聊聊吧～💬). */
const letterOrDigit = /[\p{L}\p{N}]/u;

/**
 * What a run holds together at its end: nothing (the run goes on), its last three letters with
 * their punctuation (body text: "感到焦虑。", never "焦虑。" alone), or its last three characters,
 * punctuation counted (large type, headings and cover texts, whose lines hold few characters
 * and balance themselves: a longer held end might not fit a line).
 */
export type HeldEnd = 'none' | 'letters' | 'characters';

export interface PhraseBreaks {
  /** UTF-16 offsets in the text before which a line may break, ascending. */
  breaks: number[];
  /**
   * The offset from which the text must stay on one line (the block's last few characters, see
   * HeldEnd), to be drawn through holdTogether. `text.length` when nothing is held.
   */
  keepTogetherFrom: number;
}

/**
 * Where lines may break in `text`, a run of one block's text. `heldEnd`: what of its end is kept
 * together, when the run ends the block (or a line of it, before a <br>). `language`: the
 * document's (cjkLanguage), for a run without kana; one with kana is Japanese.
 */
export function phraseBreaks(text: string, heldEnd: HeldEnd, language: Language = cjkLanguage(text)): PhraseBreaks {
  if (!hasCjkLetters(text)) {
    // Korean keeps its words whole in the page (keep-all, spaces between words): only its end is held.
    return { breaks: [], keepTogetherFrom: heldEnd !== 'none' && hangul.test(text) ? lastLineStart(text, [], heldEnd) : text.length };
  }
  if (kana.test(text)) language = 'ja';
  // ICU is asked only about BudouX's boundaries (`containing` segments just around each), which
  // costs half of segmenting the whole text.
  const words = wordSegmenterFor(language === 'ja' ? 'ja' : 'zh').segment(text);
  const titles = insideTitles(text);
  const breaks: number[] = [];
  for (const offset of parserFor(language).parseBoundaries(text)) {
    const before = text[offset - 1]!;
    const after = text[offset]!;
    // Between two Latin letters or next to a space the page breaks (or not) by its own rules.
    if (!(wide.test(before) || wide.test(after)) || space.test(before) || space.test(after) || titles.has(offset)) continue;
    // A <wbr> is obeyed even where no line may begin or end: never after an opening bracket
    // ([|文档); before a comma, colon, closing bracket or middle dot (材料をそろえよう|：) the
    // break moves to after it.
    if (noLineEnd.includes(before)) continue;
    if (noLineStart.includes(after)) {
      let moved = offset;
      while (moved < text.length && noLineStart.includes(text[moved]!)) moved++;
      if (moved < text.length && !space.test(text[moved]!) && !noLineEnd.includes(text[moved - 1]!)) breaks.push(moved);
      continue;
    }
    if (words.containing(offset)!.index === offset) breaks.push(offset);
  }
  dedupeAscending(breaks);
  withoutLoneLetters(text, breaks);
  separatorBreaks(text, breaks);
  if (heldEnd === 'none') return { breaks: breaks.filter((offset) => !pageBreaksAnyway(text, offset)), keepTogetherFrom: text.length };
  // In Chinese body text the held end may also begin where ICU alone sees a word begin
  // ("今天全部分享|给你们。"): held from the nearest of BudouX's phrase breaks, which are sparse in
  // Chinese, it could take a whole clause onto the last line and leave the line before it short.
  // Not in Japanese, whose phrases (bunsetsu) are short, nor in large type, whose few characters a
  // line are better broken between phrases only ("日本国憲法第九条改正論議" is one).
  const wordStarts: number[] = [];
  const reach = heldEnd === 'letters' && language !== 'ja' ? heldEndReach : 0;
  for (let offset = Math.max(1, text.length - reach); offset < text.length; offset++) {
    const before = text[offset - 1]!;
    const after = text[offset]!;
    if (!wide.test(before) || !wide.test(after) || titles.has(offset) || isLowSurrogate(text.charCodeAt(offset))) continue;
    if (words.containing(offset)!.index === offset) wordStarts.push(offset);
  }
  const keepTogetherFrom = lastLineStart(text, [...breaks, ...wordStarts], heldEnd);
  // Begun at one of ICU's word starts, the held end needs a break point there (at a space it has one).
  if (wordStarts.includes(keepTogetherFrom) && !breaks.includes(keepTogetherFrom)) breaks.push(keepTogetherFrom);
  return { breaks: breaks.filter((offset) => offset <= keepTogetherFrom && !pageBreaksAnyway(text, offset)).sort((a, b) => a - b), keepTogetherFrom };
}

/** How far from a block's end (UTF-16 units) ICU's word starts are looked at for where its held end begins. */
const heldEndReach = 16;

/**
 * Drops the break before a phrase of one letter and its punctuation ("读后|感：", "说|我。"): such a
 * phrase would start a line alone, cut from the word it ends.
 */
function withoutLoneLetters(text: string, breaks: number[]): void {
  for (let index = breaks.length - 1; index >= 0; index--) {
    const phrase = text.slice(breaks[index], breaks[index + 1] ?? text.length);
    if (loneLetter.test(phrase)) breaks.splice(index, 1);
  }
}
const loneLetter = /^\p{L}[\p{P}\s]+$/u;


/** Adds a break after every separator bar followed by CJK text: a line may end after one (never before, see noLineStart). */
function separatorBreaks(text: string, breaks: number[]): void {
  for (let offset = 1; offset < text.length - 1; offset++) {
    if (separators.includes(text[offset]!) && wide.test(text[offset + 1]!)) breaks.push(offset + 1);
  }
  dedupeAscending(breaks);
}

/** Sorts `offsets` and drops repeats, in place. */
function dedupeAscending(offsets: number[]): void {
  const unique = [...new Set(offsets)].sort((a, b) => a - b);
  offsets.splice(0, offsets.length, ...unique);
}

/** CJK closing punctuation, after which the page breaks a line even with keep-all; and opening brackets, before which it does. */
const closing = '、。，．：；！？」』）】》〉〕｝';
const opening = '「『（【《〈〔｛';
/** Separator bars a title is set around ("手冲咖啡｜零失败攻略"): a line breaks after one, never before. */
const separators = '｜|丨';
/** What no line may begin with: closing punctuation and brackets (CJK and Latin), middle dots, the long-vowel mark, separator bars. */
const noLineStart = `${closing}・ー゙゚)]},.:;!?${separators}`;
/** What no line may end with: opening brackets. */
const noLineEnd = `${opening}([{`;
const beforeSeparator = new RegExp(`(?<=\\S)(?=[${separators}])`, 'gu');

/**
 * `text` with a word joiner before each separator bar that follows a character: the page breaks
 * before a bar as readily as after it, and a line must not begin with one.
 */
export const joinSeparators = (text: string): string => text.replace(beforeSeparator, '\u2060');
/**
 * Whether the page breaks at `offset` without being told: a <wbr> there would cost layout time (one
 * element each; a 10,000-character document has thousands) and change nothing.
 */
const pageBreaksAnyway = (text: string, offset: number) => closing.includes(text[offset - 1]!) || opening.includes(text[offset]!);

/**
 * Dashes, ellipses, the middle dots of names and the wave dash or full-width tilde of a friendly
 * close, on either side of which the page may break a line (——|我妈, 安妮|·迪拉德, 聊聊吧|～).
 */
const breakableMarks = '\u2013\u2014\u2015\u2026\u22ef\u00b7\u2027\u30fb\u301c\uff5e';

const emoji = /\p{Extended_Pictographic}/u;

/**
 * `text` (the held end of a block, or a piece of it) as it must be drawn to stay on one line: spaces
 * as no-break spaces, and a word joiner (U+2060) where the page would break at punctuation anyway.
 */
export function holdTogether(text: string): string {
  let held = '';
  for (let offset = 0; offset < text.length; offset++) {
    const besideMark = breakableMarks.includes(text[offset - 1]!) || breakableMarks.includes(text[offset]!);
    // The page may break before an emoji too (💬 alone on the last line), but not inside a sequence of them.
    const emojiStarts = emoji.test(String.fromCodePoint(text.codePointAt(offset)!)) && text[offset - 1] !== '\u200d';
    if (offset > 0 && (pageBreaksAnyway(text, offset) || besideMark || emojiStarts)) held += '\u2060';
    held += text[offset] === ' ' ? '\u00a0' : text[offset];
  }
  return held;
}

/**
 * The latest break (phrase break or space) after which at least `lastLineMinimum` letters follow
 * (or characters, for `characters`); failing that, the latest after which that many characters
 * follow, punctuation counted, rather than the whole block held on one line.
 */
function lastLineStart(text: string, breaks: number[], heldEnd: 'letters' | 'characters'): number {
  const breakSet = new Set(breaks);
  const anyCharacter = () => true;
  return (heldEnd === 'letters' && latestBreakBefore(text, breakSet, (character) => letterOrDigit.test(character))) || latestBreakBefore(text, breakSet, anyCharacter);
}

function latestBreakBefore(text: string, breaks: Set<number>, counts: (character: string) => boolean): number {
  let counted = 0;
  // From the end back: count the characters (never spaces) and stop at the first break point with enough after it.
  for (let offset = text.trimEnd().length - 1; offset > 0; offset--) {
    const character = text[offset]!;
    if (!space.test(character) && !isLowSurrogate(text.charCodeAt(offset)) && counts(character)) counted++;
    const breakable = breaks.has(offset) || (space.test(text[offset - 1]!) && !space.test(character));
    if (breakable && counted >= lastLineMinimum) return offset;
  }
  return 0;
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
