// Fonts come from npm packages (@fontsource/* and a few others), never from the host, so a card looks the same on
// every machine that runs this version and CJK or emoji never fall back to tofu boxes.
// The browser page has no network: it asks for `/fonts/<package>/files/<file>` on the page's own
// origin and the renderer answers from node_modules (see resolveFontFile).
//
// The faces (some 3,000 @font-face rules, 3 MB, each with its code points parsed) are built by
// `npm run build` into dist/ (scripts/write-font-faces.mjs) and read from there at start, also
// when the service runs from source with a build beside it: building them takes about a second
// of CPU. Without a build made for these font packages and this list, they are built on first use.
// Render pages do not take them all: a page holds the faces its cards have needed so far
// (render/page-fonts.ts).
import fs from 'node:fs';
import path from 'node:path';
import { resolveKatexFontFile } from '../markdown/math.js';
import { nodeModulesDir, projectRoot } from '../../paths.js';

interface BundledFont {
  /** Short name used in the page's font URLs. */
  id: string;
  /** npm package holding the font; its CSS refers to files in its `files/` folder. */
  pkg: string;
  /**
   * The package's folder holding both the CSS files and, beside them, the font files they name as
   * `./<file>`; without it, the CSS files are at the package's root and the fonts in `files/`.
   */
  dir?: string;
  /** The CSS files of the package to include, e.g. "400.css" or "400-italic.css". */
  files: string[];
  /** Drops these code points (inclusive ranges) from every face of the family. */
  drop?: readonly CodePointRange[];
  /** A unicode-range for faces that declare none (the whole font): the only characters it is loaded for. */
  range?: string;
  /** Gives every face this font-weight and family: a face that stands in for another weight of a family. */
  weight?: number;
  family?: string;
  /** Keeps only the code points that no face of this bundled font (by id) claims: a supplement. */
  supplements?: string;
}

/**
 * CJK faces also carry monochrome pictographs in the emoji planes; dropping them there lets emoji
 * fall through to Noto Color Emoji, which follows them in every font stack.
 * The emoji font is @infolektuell's COLRv1 build: @fontsource's subsets of the same font draw
 * nothing in Chromium (checked with headless_shell 147 and Chromium 156).
 * Every face is split by unicode-range, so a page only loads the subsets its text uses.
 * The stacks themes use are the CSS variables of themes/_base.css (see themes/README.md).
 */
type CodePointRange = readonly [number, number];
const emojiPlane: CodePointRange = [0x1f000, 0x1ffff];
/**
 * Hangul: the Chinese faces draw a few hundred syllables (LXGW WenKai, Noto Sans SC, ZCOOL KuaiLe
 * …), so a Korean word would mix them with the Korean face that draws the rest, glyph by glyph,
 * with gaps where the two designs' widths differ. Dropped from every face but the Korean ones, every
 * Hangul character falls to the Korean face of the stack's style.
 */
const hangul: CodePointRange[] = [
  [0x1100, 0x11ff],
  [0x3130, 0x318f],
  [0xa960, 0xa97f],
  [0xac00, 0xd7ff],
];
const notKorean = [emojiPlane, ...hangul];
const bundledFonts: BundledFont[] = [
  // CJK text faces (they cover simplified Chinese, Japanese kana and Latin).
  { id: 'noto-sans-sc', pkg: '@fontsource/noto-sans-sc', files: ['400.css', '700.css'], drop: notKorean },
  { id: 'noto-serif-sc', pkg: '@fontsource/noto-serif-sc', files: ['400.css', '700.css'], drop: notKorean },
  { id: 'lxgw-wenkai', pkg: 'lxgw-wenkai-webfont', files: ['lxgwwenkai-regular.css', 'lxgwwenkai-bold.css'], drop: notKorean },
  // The subsets above are cut along a fixed list of common characters, which leaves out some 300
  // of the 5,401 common traditional characters (Big5 level 1: 歿 紂 閂 浹 鄴 …) and most rarer ones,
  // although the font draws them; a Kai title then took them from a plain sans or serif face.
  // This build of the same font is cut along its own character map: its faces, kept only for what
  // the subsets above lack, complete the family. It has no bold, so its medium weight stands in.
  {
    id: 'lxgw-wenkai-full-400',
    pkg: '@chinese-fonts/lxgwwenkai',
    dir: 'dist/LXGWWenKai-Regular',
    files: ['result.css'],
    drop: notKorean,
    supplements: 'lxgw-wenkai',
  },
  {
    id: 'lxgw-wenkai-full-700',
    pkg: '@chinese-fonts/lxgwwenkai',
    dir: 'dist/LXGWWenKai-Medium',
    files: ['result.css'],
    drop: notKorean,
    supplements: 'lxgw-wenkai',
    family: 'LXGW WenKai',
    weight: 700,
  },
  // CJK display faces: brush calligraphy and a rounded hand-drawn face.
  { id: 'ma-shan-zheng', pkg: '@fontsource/ma-shan-zheng', files: ['400.css'], drop: notKorean },
  { id: 'zcool-kuaile', pkg: '@fontsource/zcool-kuaile', files: ['400.css'], drop: notKorean },
  // Faces for what the Chinese faces above do not draw, one sans and one serif each, so a stack
  // keeps its character: traditional Chinese, Japanese (half-width kana, CJK Extension B names
  // such as 𠮷), Korean, Greek, Thai, Arabic, Hebrew and Devanagari. They follow the Chinese faces in every
  // stack; unicode-range makes a card load only the subsets its text needs.
  { id: 'noto-sans-tc', pkg: '@fontsource/noto-sans-tc', files: ['400.css', '700.css'], drop: notKorean },
  { id: 'noto-serif-tc', pkg: '@fontsource/noto-serif-tc', files: ['400.css', '700.css'], drop: notKorean },
  { id: 'noto-sans-jp', pkg: '@fontsource/noto-sans-jp', files: ['400.css', '700.css'], drop: notKorean },
  // Noto Sans JP draws the CJK Extension B characters of JIS X 0213 (𠀋 𡈽 𠮷, common in names);
  // no Noto serif face on npm does, so serif stacks take them from Shippori Mincho.
  { id: 'shippori-mincho', pkg: '@fontsource/shippori-mincho', files: ['400.css', '700.css'], drop: notKorean },
  // Noto Sans HK and Noto Serif HK draw the CJK Extension B characters of Hong Kong's HKSCS, some
  // 1,700 of them (Cantonese words and names such as 𡘙 𥻗 𨋢) that neither JIS X 0213 nor the
  // faces above have. They follow the Japanese faces; a card loads the subsets of the ones it uses.
  { id: 'noto-sans-hk', pkg: '@fontsource/noto-sans-hk', files: ['400.css', '700.css'], drop: notKorean },
  { id: 'noto-serif-hk', pkg: '@fontsource/noto-serif-hk', files: ['400.css', '700.css'], drop: notKorean },
  { id: 'noto-sans-kr', pkg: '@fontsource/noto-sans-kr', files: ['400.css', '700.css'], drop: [emojiPlane] },
  { id: 'noto-serif-kr', pkg: '@fontsource/noto-serif-kr', files: ['400.css', '700.css'], drop: [emojiPlane] },
  // Greek (and Latin or Cyrillic letters the CJK faces lack), sans and serif.
  { id: 'noto-sans', pkg: '@fontsource/noto-sans', files: ['400.css', '700.css'] },
  { id: 'noto-serif', pkg: '@fontsource/noto-serif', files: ['400.css', '700.css'] },
  { id: 'noto-sans-thai', pkg: '@fontsource/noto-sans-thai', files: ['400.css', '700.css'] },
  { id: 'noto-serif-thai', pkg: '@fontsource/noto-serif-thai', files: ['400.css', '700.css'] },
  { id: 'noto-sans-arabic', pkg: '@fontsource/noto-sans-arabic', files: ['400.css', '700.css'] },
  { id: 'noto-naskh-arabic', pkg: '@fontsource/noto-naskh-arabic', files: ['400.css', '700.css'] },
  { id: 'noto-sans-hebrew', pkg: '@fontsource/noto-sans-hebrew', files: ['400.css', '700.css'] },
  { id: 'noto-serif-hebrew', pkg: '@fontsource/noto-serif-hebrew', files: ['400.css', '700.css'] },
  { id: 'noto-sans-devanagari', pkg: '@fontsource/noto-sans-devanagari', files: ['400.css', '700.css'] },
  { id: 'noto-serif-devanagari', pkg: '@fontsource/noto-serif-devanagari', files: ['400.css', '700.css'] },
  { id: 'noto-color-emoji', pkg: '@infolektuell/noto-color-emoji', files: ['index.css'] },
  // Dingbats and symbols that are not emoji (✦ ✧ ✎ ❖ ➤ …), which no text face above carries;
  // stacks list it after the emoji font so emoji keep their colour glyphs.
  { id: 'noto-sans-symbols-2', pkg: '@fontsource/noto-sans-symbols-2', files: ['400.css'] },
  // Arrows, mathematical operators, technical signs, box drawing and shapes that the faces above
  // lack although Noto Sans Symbols 2 claims some of them (its subsets' ranges are wider than its
  // glyphs): ⇗ in a README's links fell to the host's font. DejaVu Sans draws these blocks whole;
  // it is one file, loaded only by a card that draws one of them.
  {
    id: 'dejavu-sans',
    pkg: '@fontsource/dejavu-sans',
    files: ['400.css', '700.css'],
    range: 'U+2100-23FF, U+2460-27BF, U+27C0-2BFF',
  },
  { id: 'jetbrains-mono', pkg: '@fontsource/jetbrains-mono', files: ['400.css', '700.css'] },
  // Box drawing and block elements in code (┌─┬─┐ tables of console output), which JetBrains Mono's
  // subsets leave out: a proportional or CJK face would draw them 1 em wide and break the columns.
  // DejaVu Sans Mono's cells are 0.602 em, JetBrains Mono's 0.6. Loaded only by a card that draws one.
  { id: 'dejavu-mono', pkg: '@fontsource/dejavu-mono', files: ['400.css', '700.css'], range: 'U+2500-259F' },
  // Latin display faces; CJK text in them falls through to the CJK faces of the same stack.
  { id: 'playfair-display', pkg: '@fontsource/playfair-display', files: ['400.css', '700.css', '400-italic.css'] },
  { id: 'comic-neue', pkg: '@fontsource/comic-neue', files: ['400.css', '700.css', '400-italic.css'] },
  { id: 'bangers', pkg: '@fontsource/bangers', files: ['400.css'] },
  { id: 'poiret-one', pkg: '@fontsource/poiret-one', files: ['400.css'] },
  { id: 'courier-prime', pkg: '@fontsource/courier-prime', files: ['400.css', '700.css', '400-italic.css'] },
  { id: 'special-elite', pkg: '@fontsource/special-elite', files: ['400.css'] },
  { id: 'orbitron', pkg: '@fontsource/orbitron', files: ['400.css', '700.css'] },
];

function fontCssFiles(): { font: BundledFont; css: string }[] {
  return bundledFonts.flatMap((font) =>
    font.files.map((file) => {
      const css = fs.readFileSync(path.join(nodeModulesDir, font.pkg, font.dir ?? '', file), 'utf8');
      return { font, css: font.family ? css.replace(/font-family:\s*[^;}]+/g, `font-family: "${font.family}"`) : css };
    }),
  );
}

/**
 * The bundled faces: each one's @font-face rule, and which face claims which code points. In one
 * group (family, weight and style) no two faces claim the same code point, and the ranges are
 * sorted, so the face of a code point is found by halving (see font-face-index.ts).
 */
export interface BundledFaces {
  /**
   * Every face's rule, with URLs pointing at the renderer's `/fonts/` route, in stylesheet order,
   * and `unicode-range: ${unicodeRange}` where the code points go (the groups say which).
   */
  rules: string[];
  groups: FaceGroup[];
  /**
   * Every face's whole claim as a `unicode-range` value, or '' for a subset of Chinese, Japanese or
   * Korean characters (most of what it claims is drawn alone): a render page declares such a face
   * with the characters it uses, and any other face whole (render/page-fonts.ts).
   */
  wholeRanges: string[];
}

/**
 * Characters that never form a cluster with their neighbours: CJK ideographs, kana, Hangul
 * syllables and CJK punctuation. (Combining kana marks and Hangul jamo are not among them.)
 */
const drawnAlonePattern = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\uac00-\ud7a3\u3000-\u303f\uff00-\uffef]$/u;
export const isDrawnAlone = (point: number) => drawnAlonePattern.test(String.fromCodePoint(point));

/** Whether most of the code points of these ranges are drawn alone: a subset of CJK characters. */
function isCjkSubset(ranges: readonly CodePointRange[]): boolean {
  let alone = 0;
  let all = 0;
  for (const [low, high] of ranges) {
    for (let point = low; point <= high; point++) if (isDrawnAlone(point)) alone++;
    all += high - low + 1;
  }
  return alone * 2 > all;
}

/** The placeholder of a rule's code points. */
export const unicodeRange = 'UNICODE_RANGE';

export interface FaceGroup {
  /** Inclusive ranges of code points, sorted. */
  lows: Uint32Array;
  highs: Uint32Array;
  /** The face (its index in `rules`) each range belongs to. */
  faces: Uint16Array;
}

let facesOnce: BundledFaces | undefined;
let fontFaceCssOnce: string | undefined;

/** Once per process. */
export function bundledFaces(): BundledFaces {
  facesOnce ??= prebuiltFontFaces.read() ?? buildFaces();
  return facesOnce;
}

/** All @font-face rules as one stylesheet: the web page's editor takes them whole (its browser loads subsets as it needs). */
export function fontFaceCss(): string {
  if (fontFaceCssOnce === undefined) {
    const { rules, groups } = bundledFaces();
    const rangesOf = rules.map((): CodePointRange[] => []);
    for (const { lows, highs, faces } of groups) for (let range = 0; range < lows.length; range++) rangesOf[faces[range]!]!.push([lows[range]!, highs[range]!]);
    fontFaceCssOnce = rules.map((rule, face) => rule.replace(unicodeRange, formatRanges(rangesOf[face]!))).join('\n');
  }
  return fontFaceCssOnce;
}

function buildFontFaceCss(): string {
  const files = fontCssFiles();
  return files
    .map(({ font, css }) => {
      const fontFolder = font.dir ? /url\((['"]?)\.\//g : /url\((['"]?)\.\/files\//g;
      // Only the package's files, and only WOFF2 (Chromium reads it; the WOFF copies beside it would
      // add a third to the bytes of every rule a page parses): a face never names a font installed on the host.
      const own = css
        .replace(fontFolder, `url($1/fonts/${font.id}/files/`)
        .replace(/local\([^)]*\)\s*,\s*/g, '')
        .replace(/,\s*url\([^)]*\.woff['"]?\)\s*format\(['"]woff['"]\)/g, '');
      const local = withRange(own, font.range);
      const supplement = font.supplements ? dropClaimed(local, claimedCodePoints(files.filter((file) => file.font.id === font.supplements))) : local;
      return withWeight(dropCodePoints(supplement, font.drop ?? []), font.weight);
    })
    .join('\n');
}

interface ParsedFace {
  css: string;
  /** Family, weight and style. */
  group: string;
  ranges: CodePointRange[];
}

function buildFaces(): BundledFaces {
  const faces = withoutOverlaps(
    (buildFontFaceCss().match(/@font-face\s*{[^}]*}/g) ?? []).map((css): ParsedFace => {
      const descriptor = (name: string) => new RegExp(`${name}:\\s*([^;}]+)`).exec(css)?.[1]?.trim() ?? '';
      const group = `${descriptor('font-family')}|${descriptor('font-weight') || '400'}|${descriptor('font-style') || 'normal'}`;
      return { css, group, ranges: parseRanges(descriptor('unicode-range') || 'U+0-10FFFF') };
    }),
  );
  const rangesByGroup = new Map<string, [low: number, high: number, face: number][]>();
  faces.forEach((face, index) => {
    const ranges = rangesByGroup.get(face.group) ?? [];
    rangesByGroup.set(face.group, ranges);
    for (const [low, high] of face.ranges) ranges.push([low, high, index]);
  });
  const groups = [...rangesByGroup.values()].map((ranges): FaceGroup => {
    ranges.sort((a, b) => a[0] - b[0]);
    return {
      lows: Uint32Array.from(ranges, (range) => range[0]),
      highs: Uint32Array.from(ranges, (range) => range[1]),
      faces: Uint16Array.from(ranges, (range) => range[2]),
    };
  });
  return {
    rules: faces.map((face) => face.css.replace(/unicode-range:[^;}]+/, `unicode-range: ${unicodeRange}`)),
    groups,
    wholeRanges: faces.map((face) => (isCjkSubset(face.ranges) ? '' : formatRanges(face.ranges))),
  };
}

/**
 * Some faces of one family, weight and style claim the same code points (a Chinese face's Latin
 * subset and its numbered subsets share a few dozen). The stylesheet's rule is that the face
 * declared last wins; a render page declares faces in the order its cards need them, so here each
 * code point is left to that face alone and the order no longer matters.
 */
function withoutOverlaps(faces: ParsedFace[]): ParsedFace[] {
  const claimedByGroup = new Map<string, Set<number>>();
  for (let index = faces.length - 1; index >= 0; index--) {
    const face = faces[index]!;
    const claimed = claimedByGroup.get(face.group) ?? new Set<number>();
    claimedByGroup.set(face.group, claimed);
    const kept: CodePointRange[] = [];
    let changed = false;
    for (const [low, high] of face.ranges) {
      for (let point = low; point <= high; point++) {
        if (claimed.has(point)) {
          changed = true;
          continue;
        }
        claimed.add(point);
        const last = kept.at(-1);
        if (last && last[1] === point - 1) kept[kept.length - 1] = [last[0], point];
        else kept.push([point, point]);
      }
    }
    if (!changed) continue;
    if (kept.length === 0) {
      faces.splice(index, 1);
      continue;
    }
    const range = `unicode-range: ${formatRanges(kept)};`;
    const css = /unicode-range:[^;}]+;?/.test(face.css) ? face.css.replace(/unicode-range:[^;}]+;?/, range) : face.css.replace(/}$/, `  ${range}\n}`);
    faces[index] = { ...face, ranges: kept, css };
  }
  return faces;
}

/** The typed arrays of the faces' groups travel as base64 text: read back in a few ms, where a JSON array of numbers took a few hundred. */
interface StoredFaces {
  rules: string[];
  wholeRanges: string[];
  groups: Record<keyof FaceGroup, string>[];
}

const asBase64 = (array: Uint32Array | Uint16Array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString('base64');
/** Copied into an aligned buffer of their own: a Buffer's bytes may start anywhere in a shared pool. */
function bytesOf(text: string): ArrayBuffer {
  const bytes = Buffer.from(text, 'base64');
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/**
 * The faces as the build writes them (scripts/write-font-faces.mjs), headed by the name and
 * version of every font package and the list of fonts, so a build made for other packages or
 * another list is ignored, never served. `facesFormat` changes whenever the way faces are built does.
 */
const facesFormat = 3;
export const prebuiltFontFaces = {
  /** dist/cards/themes/, where the compiled copy of this module lives. */
  file: path.join(projectRoot, 'dist', 'cards', 'themes', 'font-faces.json'),
  header(): string {
    const versions = bundledFonts.map(({ pkg }) => {
      const { version } = JSON.parse(fs.readFileSync(path.join(nodeModulesDir, pkg, 'package.json'), 'utf8')) as { version: string };
      return `${pkg}@${version}`;
    });
    return JSON.stringify({ facesFormat, versions, bundledFonts });
  },
  /** What the build writes: the header's line, then the faces built now. */
  contents(): string {
    const { rules, groups, wholeRanges } = buildFaces();
    const stored: StoredFaces = {
      rules,
      wholeRanges,
      groups: groups.map((group) => ({ lows: asBase64(group.lows), highs: asBase64(group.highs), faces: asBase64(group.faces) })),
    };
    return `${this.header()}\n${JSON.stringify(stored)}`;
  },
  read(): BundledFaces | undefined {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch {
      return undefined; // not built
    }
    const header = this.header();
    if (!text.startsWith(`${header}\n`)) return undefined;
    const stored = JSON.parse(text.slice(header.length + 1)) as StoredFaces;
    const groups = stored.groups.map((group) => ({
      lows: new Uint32Array(bytesOf(group.lows)),
      highs: new Uint32Array(bytesOf(group.highs)),
      faces: new Uint16Array(bytesOf(group.faces)),
    }));
    return { rules: stored.rules, groups, wholeRanges: stored.wholeRanges };
  },
};

/**
 * Maps a `/fonts/<pkg>/files/<file>` path to a file inside a bundled font package, or undefined.
 * Only known packages and plain file names are accepted, so a crafted path cannot leave them.
 */
export function resolveFontFile(urlPath: string): string | undefined {
  const mathFont = resolveKatexFontFile(urlPath);
  if (mathFont) return mathFont;
  const match = /^\/fonts\/([a-z0-9-]+)\/files\/([a-z0-9-]+\.woff2?)$/.exec(urlPath);
  if (!match) return undefined;
  const [, id, file] = match as unknown as [string, string, string];
  const font = bundledFonts.find((candidate) => candidate.id === id);
  return font && path.join(nodeModulesDir, font.pkg, font.dir ?? 'files', file);
}

/** The code points the faces of these CSS files claim in their `unicode-range`s. */
function claimedCodePoints(files: { css: string }[]): Set<number> {
  const claimed = new Set<number>();
  for (const { css } of files) {
    for (const match of css.matchAll(/unicode-range:\s*([^;}]+)/g)) {
      for (const [low, high] of parseRanges(match[1]!)) for (let point = low; point <= high; point++) claimed.add(point);
    }
  }
  return claimed;
}

/**
 * Rewrites every face's `unicode-range` to the code points `claimed` lacks; faces left empty go.
 * Point by point, for a font whose faces list their characters one by one (some 45,000 in all).
 */
function dropClaimed(css: string, claimed: ReadonlySet<number>): string {
  return css.replace(/@font-face\s*{[^}]*}/g, (face) => {
    const rangeMatch = /unicode-range:\s*([^;}]+);?/.exec(face);
    if (!rangeMatch?.[1]) return face;
    const kept: CodePointRange[] = [];
    for (const [low, high] of parseRanges(rangeMatch[1])) {
      for (let point = low; point <= high; point++) {
        if (claimed.has(point)) continue;
        const last = kept.at(-1);
        if (last && last[1] === point - 1) kept[kept.length - 1] = [last[0], point];
        else kept.push([point, point]);
      }
    }
    return kept.length === 0 ? '' : face.replace(rangeMatch[0], `unicode-range: ${formatRanges(kept)};`);
  });
}

/** Gives every face this font-weight. */
function withWeight(css: string, weight: number | undefined): string {
  return weight === undefined ? css : css.replace(/font-weight:\s*\d+/g, `font-weight: ${weight}`);
}

function parseRanges(text: string): CodePointRange[] {
  return text.split(',').flatMap((token): CodePointRange[] => {
    const [lowText, highText] = token.trim().replace(/^U\+/i, '').split('-');
    const low = parseInt(lowText ?? '', 16);
    return Number.isNaN(low) ? [] : [[low, highText === undefined ? low : parseInt(highText, 16)]];
  });
}

/** A `unicode-range` value: `U+41` for one code point, `U+41-5a` for a range. */
export function formatRanges(ranges: readonly CodePointRange[]): string {
  const hex = (value: number) => value.toString(16);
  return ranges.map(([low, high]) => (high === low ? `U+${hex(low)}` : `U+${hex(low)}-${hex(high)}`)).join(',');
}

/** Gives every face without a `unicode-range` this one. */
function withRange(css: string, range: string | undefined): string {
  if (range === undefined) return css;
  return css.replace(/@font-face\s*{[^}]*}/g, (face) => (/unicode-range/.test(face) ? face : face.replace(/}$/, `  unicode-range: ${range};\n}`)));
}

/**
 * Rewrites every `unicode-range` so no face claims a code point in `drops` (inclusive ranges);
 * faces left empty go. One pass over the faces, and a face none of whose ranges meets a dropped one
 * is kept as it is: the CJK families have some 2,000 faces, and rewriting each of them once per
 * dropped range took over a second of start-up, before the browser was even launched.
 */
function dropCodePoints(css: string, drops: readonly CodePointRange[]): string {
  if (drops.length === 0) return css;
  const overlapsDrop = ([low, high]: CodePointRange) => drops.some(([from, to]) => low <= to && high >= from);
  return css.replace(/@font-face\s*{[^}]*}/g, (face) => {
    // The declaration may be the last of its rule, without a semicolon (lxgw-wenkai-webfont's are).
    const rangeMatch = /unicode-range:\s*([^;}]+);?/.exec(face);
    if (!rangeMatch?.[1]) return face;
    const ranges = parseRanges(rangeMatch[1]);
    if (!ranges.some(overlapsDrop)) return face;
    const kept = drops.reduce<CodePointRange[]>(
      (pieces, [from, to]) =>
        pieces.flatMap(([low, high]): CodePointRange[] => [
          ...(low < from ? [[low, Math.min(high, from - 1)] as const] : []),
          ...(high > to ? [[Math.max(low, to + 1), high] as const] : []),
        ]),
      ranges,
    );
    return kept.length === 0 ? '' : face.replace(rangeMatch[0], `unicode-range: ${formatRanges(kept)};`);
  });
}
