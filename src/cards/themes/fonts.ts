// Fonts come from npm packages (@fontsource/* and a few others), never from the host, so a card looks the same on
// every machine that runs this version and CJK or emoji never fall back to tofu boxes.
// The browser page has no network: it asks for `/fonts/<package>/files/<file>` on the page's own
// origin and the renderer answers from node_modules (see resolveFontFile).
import fs from 'node:fs';
import path from 'node:path';
import { resolveKatexFontFile } from '../markdown/math.js';
import { nodeModulesDir } from '../../paths.js';

interface BundledFont {
  /** Short name used in the page's font URLs. */
  id: string;
  /** npm package holding the font; its CSS refers to files in its `files/` folder. */
  pkg: string;
  /** The CSS files of the package to include, e.g. "400.css" or "400-italic.css". */
  files: string[];
  /** Drops code points at or above this value from every face of the family. */
  dropFrom?: number;
}

/**
 * CJK faces also carry monochrome pictographs in the emoji planes; dropping them there lets emoji
 * fall through to Noto Color Emoji, which follows them in every font stack.
 * The emoji font is @infolektuell's COLRv1 build: @fontsource's subsets of the same font draw
 * nothing in Chromium (checked with headless_shell 147 and Chromium 156).
 * Every face is split by unicode-range, so a page only loads the subsets its text uses.
 * The stacks themes use are the CSS variables of themes/_base.css (see themes/README.md).
 */
const emojiPlanes = 0x1f000;
const bundledFonts: BundledFont[] = [
  // CJK text faces (they cover simplified Chinese, Japanese kana and Latin).
  { id: 'noto-sans-sc', pkg: '@fontsource/noto-sans-sc', files: ['400.css', '700.css'], dropFrom: emojiPlanes },
  { id: 'noto-serif-sc', pkg: '@fontsource/noto-serif-sc', files: ['400.css', '700.css'], dropFrom: emojiPlanes },
  { id: 'lxgw-wenkai', pkg: 'lxgw-wenkai-webfont', files: ['lxgwwenkai-regular.css', 'lxgwwenkai-bold.css'], dropFrom: emojiPlanes },
  // CJK display faces: brush calligraphy and a rounded hand-drawn face.
  { id: 'ma-shan-zheng', pkg: '@fontsource/ma-shan-zheng', files: ['400.css'], dropFrom: emojiPlanes },
  { id: 'zcool-kuaile', pkg: '@fontsource/zcool-kuaile', files: ['400.css'], dropFrom: emojiPlanes },
  { id: 'noto-color-emoji', pkg: '@infolektuell/noto-color-emoji', files: ['index.css'] },
  // Dingbats and symbols that are not emoji (✦ ✧ ✎ ❖ ➤ …), which no text face above carries;
  // stacks list it after the emoji font so emoji keep their colour glyphs.
  { id: 'noto-sans-symbols-2', pkg: '@fontsource/noto-sans-symbols-2', files: ['400.css'] },
  { id: 'jetbrains-mono', pkg: '@fontsource/jetbrains-mono', files: ['400.css', '700.css'] },
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
    font.files.map((file) => ({ font, css: fs.readFileSync(path.join(nodeModulesDir, font.pkg, file), 'utf8') })),
  );
}

let fontFaceCssOnce: string | undefined;

/** All @font-face rules, with URLs pointing at the renderer's `/fonts/` route. */
export function fontFaceCss(): string {
  // Built once per process: it reads some forty files and is asked for by the shell document and the web page.
  fontFaceCssOnce ??= fontCssFiles()
    .map(({ font, css }) => {
      const local = css.replace(/url\((['"]?)\.\/files\//g, `url($1/fonts/${font.id}/files/`);
      return font.dropFrom === undefined ? local : dropCodePoints(local, font.dropFrom);
    })
    .join('\n');
  return fontFaceCssOnce;
}

/** Family names of every bundled face, so a check can tell bundled fonts from the host's. */
export function bundledFamilies(): string[] {
  const families = new Set<string>();
  for (const { css } of fontCssFiles()) {
    for (const match of css.matchAll(/font-family:\s*['"]?([^'";]+?)['"]?\s*;/g)) families.add(match[1]!);
  }
  return [...families];
}

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
  return font && path.join(nodeModulesDir, font.pkg, 'files', file);
}

/** Rewrites every `unicode-range` so no face claims code points >= limit; faces left empty go. */
function dropCodePoints(css: string, limit: number): string {
  return css.replace(/@font-face\s*{[^}]*}/g, (face) => {
    const rangeMatch = /unicode-range:\s*([^;]+);/.exec(face);
    if (!rangeMatch?.[1]) return face;
    const kept = rangeMatch[1]
      .split(',')
      .map((token) => token.trim().replace(/^U\+/i, ''))
      .flatMap((token) => {
        const [lowText, highText] = token.split('-');
        const low = parseInt(lowText ?? '', 16);
        const high = highText === undefined ? low : parseInt(highText, 16);
        if (Number.isNaN(low) || low >= limit) return [];
        const top = Math.min(high, limit - 1);
        return [top === low ? `U+${low.toString(16)}` : `U+${low.toString(16)}-${top.toString(16)}`];
      });
    return kept.length === 0 ? '' : face.replace(rangeMatch[0], `unicode-range: ${kept.join(',')};`);
  });
}
