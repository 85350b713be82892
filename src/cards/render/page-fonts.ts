// The fonts a render page declares. Declaring every bundled face in every page (some 3,000
// @font-face rules, 3 MB) made each page take about a second of Chromium's CPU to open and keep
// tens of MB more. A page now declares the faces of the characters its shell's own CSS and Latin-1
// use, and before any markup goes in, those of the characters it brings that the page has not seen
// yet, and of the characters the CSS of each theme it brings draws (decorations, quote marks), the
// first time it brings that theme's cards. Every face that claims a character is declared before
// the character is laid out, so a card looks exactly as it would with every face declared in full
// (docs/performance.md#fonts-per-page).
//
// How much of a face is declared depends on what it draws:
// - A subset of Chinese, Japanese or Korean characters (they are drawn one by one; such a face
//   claims hundreds, and a card uses a few) is declared with the characters the page uses, as they
//   come.
// - Any other face (Latin, Greek, Cyrillic, Arabic, Devanagari, symbols, emoji) is declared whole,
//   with all it claims, the first time the page needs it. Declared with a few characters, it had
//   to be declared again for every new one: each new declaration made Chromium fetch and decode
//   the font anew and lay every text out again (a card with a first π took some 50 ms more), and
//   characters drawn together (a letter and its combining marks, Arabic letters that join, a
//   Devanagari conjunct, an emoji sequence) must come from one declared face, or Chromium draws
//   the whole cluster with a host font that has them all.
// A CJK subset that is also used for a character drawn with its neighbours is declared again with
// every character the page has used it for; the later declaration wins for the characters it
// claims, and shares the font file already loaded.
import { FontFaceIndex } from '../themes/font-face-index.js';
import { counterStyleCharacters } from './counter-styles.js';
import { bundledFaces, isDrawnAlone } from '../themes/fonts.js';

/** What a freshly opened page declares: the rules, and the characters and faces they were written for. */
export interface ShellFonts {
  readonly index: FontFaceIndex;
  readonly codePoints: ReadonlySet<number>;
  /** The faces the rules declare (see Declared). */
  readonly declared: ReadonlyMap<number, Declared>;
  /** The @font-face rules that go into the shell document. */
  readonly rules: string;
  /** The themes whose characters are declared with their first cards, not in the shell. */
  readonly themes: readonly ThemeCharacters[];
}

/** A theme's stylesheet: the class its cards carry, and its CSS. */
export interface ThemeStyles {
  readonly className: string;
  readonly css: string;
}

/** The code points a theme's CSS draws beyond ASCII, and the class that tells its cards. */
interface ThemeCharacters {
  readonly className: string;
  readonly codePoints: readonly number[];
}

/** A face a page has declared: whole, or for these code points, all of them drawn alone or not. */
type Declared = 'whole' | { readonly points: number[]; alone: boolean };

/**
 * Characters a page draws without their being in any markup: list markers (•, ◦, ▪), an
 * ellipsis where text is cut, hyphens, the quotes of a `<q>`.
 */
const drawnByTheBrowser = '•◦▪▫■□●○–—…‐‑‘’“”«»‹›';

/**
 * The faces of every character the shell's own CSS draws, of printable Latin-1 and of what the
 * browser draws itself. The characters of `themes` are left to their first cards: declared in the
 * shell, the decorations of 23 themes in every weight of the CJK faces that have them were 470 of
 * its 730 faces and 138 KB of its rules, which every page parsed as it opened.
 */
export function shellFonts(css: string, themes: readonly ThemeStyles[] = []): ShellFonts {
  const index = new FontFaceIndex(bundledFaces());
  const codePoints = new Set<number>();
  for (let point = 0x20; point <= 0xff; point++) if (point < 0x7f || point >= 0xa0) codePoints.add(point);
  for (const point of codePointsIn(drawnByTheBrowser)) codePoints.add(point);
  for (const point of drawnBy(css)) codePoints.add(point);
  const declared = new Map<number, Declared>();
  const rules = declare(index, declared, [...codePoints]);
  return {
    index,
    codePoints,
    declared,
    rules: `${index.groupDeclarations()}\n${rules}`,
    themes: themes.map((theme) => ({ className: theme.className, codePoints: [...drawnBy(theme.css)].filter((point) => !codePoints.has(point)) })),
  };
}

/** The code points beyond ASCII that a stylesheet draws: in `content`, as escapes, and the numbers of the counter styles it names. */
function drawnBy(css: string): Set<number> {
  // Comments name themes in their own languages; they draw nothing.
  const drawn = css.replace(/\/\*[\s\S]*?\*\//g, '');
  const points = new Set(codePointsIn(drawn + counterStyleCharacters(drawn)));
  // CSS writes characters as escapes too (`content: "\201C"`).
  for (const match of drawn.matchAll(/\\([0-9a-fA-F]{1,6})/g)) points.add(parseInt(match[1]!, 16));
  return points;
}

/** In the page: declares `rules` (@font-face rules from PageFonts.rulesFor) in a style element of their own. */
export function declareInPage(rules: string): void {
  document.head.append(Object.assign(document.createElement('style'), { textContent: rules }));
}

/**
 * The rules that declare the faces of `added` (code points the page has not seen) beyond what
 * `declared` holds, which it updates: a face other than a CJK subset whole, the first time; a CJK
 * subset with the new code points, or all it was used for when some of them join their neighbours.
 */
function declare(index: FontFaceIndex, declared: Map<number, Declared>, added: readonly number[]): string {
  const rules: string[] = [];
  for (const [face, points] of index.pointsByFace(added)) {
    const before = declared.get(face);
    if (before === 'whole') continue;
    const whole = before ? undefined : index.wholeRuleFor(face);
    if (whole) {
      declared.set(face, 'whole');
      rules.push(whole);
      continue;
    }
    const used = before ?? { points: [], alone: true };
    used.points.push(...points);
    used.alone &&= points.every(isDrawnAlone);
    declared.set(face, used);
    rules.push(index.ruleFor(face, used.alone ? points : used.points));
  }
  return rules.join('\n');
}

/** One page's fonts: starts as its shell declared them, and learns what each markup added. */
export class PageFonts {
  private readonly seen: Set<number>;
  private readonly declared: Map<number, Declared>;
  /** The themes whose cards the page has not had yet, and a pattern that finds their classes. */
  private themesToCome: ThemeCharacters[];
  private themeClasses?: RegExp;

  constructor(private readonly shell: ShellFonts) {
    this.seen = new Set(shell.codePoints);
    // Each page's own copy: what one page declared is not declared in another.
    this.declared = new Map([...shell.declared].map(([face, state]) => [face, state === 'whole' ? state : { points: [...state.points], alone: state.alone }]));
    this.themesToCome = shell.themes.filter((theme) => theme.codePoints.length > 0);
  }

  /**
   * The @font-face rules for the characters of `text` (markup, or a script carrying markup) that
   * the page has not declared yet; '' when there are none, as for most requests once a page is
   * warm. The caller declares them in the page before the text goes in; a page whose step failed
   * is never reused.
   */
  rulesFor(text: string): string {
    const added: number[] = [];
    const take = (point: number) => {
      if (this.seen.has(point)) return;
      this.seen.add(point);
      added.push(point);
    };
    for (const point of codePointsIn(text)) take(point);
    for (const theme of this.themesArrivingWith(text)) for (const point of theme.codePoints) take(point);
    if (added.length === 0) return '';
    return declare(this.shell.index, this.declared, added);
  }

  /** The themes whose class `text` names for the first time on this page (a card's markup, a script carrying it). */
  private themesArrivingWith(text: string): ThemeCharacters[] {
    if (this.themesToCome.length === 0) return [];
    // Class names are identifiers (themes/theme-file.ts): nothing in them to escape.
    this.themeClasses ??= new RegExp(`(?<![\\w-])(?:${this.themesToCome.map((theme) => theme.className).join('|')})(?![\\w-])`, 'g');
    const named = new Set(Array.from(text.matchAll(this.themeClasses), (match) => match[0]));
    if (named.size === 0) return [];
    const arriving = this.themesToCome.filter((theme) => named.has(theme.className));
    this.themesToCome = this.themesToCome.filter((theme) => !named.has(theme.className));
    this.themeClasses = undefined;
    return arriving;
  }
}

/**
 * Every code point beyond ASCII in `text`, also those written as numeric character references
 * (`&#x4E00;`, `&#19968;`); ASCII itself is always declared.
 */
function* codePointsIn(text: string): Generator<number> {
  for (let position = 0; position < text.length; position++) {
    const unit = text.charCodeAt(position);
    if (unit < 0x80) {
      if (unit === 0x26 /* & */ && text.charCodeAt(position + 1) === 0x23 /* # */) {
        const reference = /^&#(?:[xX]([0-9a-fA-F]{1,6})|(\d{1,7}));/.exec(text.slice(position, position + 12));
        if (reference) yield reference[1] ? parseInt(reference[1], 16) : Number(reference[2]);
      }
      continue;
    }
    const point = text.codePointAt(position)!;
    if (point > 0xffff) position++;
    yield point;
  }
}
