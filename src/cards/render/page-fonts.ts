// The fonts a render page declares. Declaring every bundled face in every page (some 3,000
// @font-face rules, 3 MB) made each page take about a second of Chromium's CPU to open and keep
// tens of MB more. A page now declares the faces of the characters its shell's own CSS and Latin-1
// use, and before any markup goes in, those of the characters it brings that the page has not seen
// yet, each face with a `unicode-range` of those characters alone (a CJK face claims hundreds of
// characters; a card uses a few of them). Every face that claims a character is declared before
// the character is laid out, so a card looks exactly as it would with every face declared in full
// (docs/performance.md#fonts-per-page).
//
// Characters that are drawn together (a letter and its combining marks, Arabic letters that join,
// a Devanagari conjunct, an emoji sequence) must come from one declared face: Chromium shapes a
// cluster with one face, and when the faces it finds for the cluster's characters differ it draws
// the whole cluster with a host font that has them all. So a face is declared again with every
// character the page has used it for, not only the new ones, unless all of them are drawn one by
// one (Chinese, Japanese and Korean characters, whose subsets are the large ones). The later
// declaration wins for the characters it claims, and shares the font file already loaded.
import { FontFaceIndex } from '../themes/font-face-index.js';
import { bundledFaces } from '../themes/fonts.js';

/** What a freshly opened page declares: the rules, and the characters they were written for. */
export interface ShellFonts {
  readonly index: FontFaceIndex;
  readonly codePoints: ReadonlySet<number>;
  /** The @font-face rules that go into the shell document. */
  readonly rules: string;
}

/**
 * Characters a page draws without their being in any markup: list markers (•, ◦, ▪), an
 * ellipsis where text is cut, hyphens, the quotes of a `<q>`.
 */
const drawnByTheBrowser = '•◦▪▫■□●○–—…‐‑‘’“”«»‹›';

/** The faces of every character of `text` (CSS, HTML), of printable Latin-1 and of what the browser draws itself. */
export function shellFonts(text: string): ShellFonts {
  const index = new FontFaceIndex(bundledFaces());
  const codePoints = new Set<number>();
  for (let point = 0x20; point <= 0xff; point++) if (point < 0x7f || point >= 0xa0) codePoints.add(point);
  // Comments name themes in their own languages; they draw nothing.
  const drawn = text.replace(/\/\*[\s\S]*?\*\//g, '');
  for (const point of codePointsIn(drawn + drawnByTheBrowser)) codePoints.add(point);
  // CSS writes characters as escapes too (`content: "\201C"`).
  for (const match of drawn.matchAll(/\\([0-9a-fA-F]{1,6})/g)) codePoints.add(parseInt(match[1]!, 16));
  return { index, codePoints, rules: `${index.groupDeclarations()}\n${index.rulesFor(codePoints)}` };
}

/** In the page: declares `rules` (@font-face rules from PageFonts.rulesFor) in a style element of their own. */
export function declareInPage(rules: string): void {
  document.head.append(Object.assign(document.createElement('style'), { textContent: rules }));
}

/**
 * Characters that never form a cluster with their neighbours: CJK ideographs, kana, Hangul
 * syllables and CJK punctuation. (Combining kana marks and Hangul jamo are not among them.)
 */
const drawnAlone = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\uac00-\ud7a3\u3000-\u303f\uff00-\uffef]$/u;
const isDrawnAlone = (point: number) => drawnAlone.test(String.fromCodePoint(point));

/** One page's fonts: starts as its shell declared them, and learns what each markup added. */
export class PageFonts {
  private readonly seen: Set<number>;
  /** Each face declared so far: the code points the page used it for, and whether all are drawn alone. */
  private readonly declared = new Map<number, { points: number[]; alone: boolean }>();

  constructor(private readonly shell: ShellFonts) {
    this.seen = new Set(shell.codePoints);
    for (const [face, points] of shell.index.pointsByFace(shell.codePoints)) this.declared.set(face, { points, alone: points.every(isDrawnAlone) });
  }

  /**
   * The @font-face rules for the characters of `text` (markup, or a script carrying markup) that
   * the page has not declared yet; '' when there are none, as for most requests once a page is
   * warm. The caller declares them in the page before the text goes in; a page whose step failed
   * is never reused.
   */
  rulesFor(text: string): string {
    const added: number[] = [];
    for (const point of codePointsIn(text)) {
      if (this.seen.has(point)) continue;
      this.seen.add(point);
      added.push(point);
    }
    if (added.length === 0) return '';
    const { index } = this.shell;
    return index
      .pointsByFace(added)
      .map(([face, points]) => {
        const declared = this.declared.get(face) ?? { points: [], alone: true };
        declared.points.push(...points);
        declared.alone &&= points.every(isDrawnAlone);
        this.declared.set(face, declared);
        return index.ruleFor(face, declared.alone ? points : declared.points);
      })
      .join('\n');
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
