// Fonts come from npm packages (@fontsource/*), never from the host, so a card looks the same on
// every machine that runs this version and CJK or emoji never fall back to tofu boxes.
// The browser page has no network: it asks for `/fonts/<package>/files/<file>` on the page's own
// origin and the renderer answers from node_modules (see resolveFontFile).
import fs from 'node:fs';
import path from 'node:path';
import { nodeModulesDir } from '../paths.js';

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
 * Noto Sans SC also carries monochrome pictographs in the emoji planes; dropping them there lets
 * emoji fall through to Noto Color Emoji, which follows it in every font stack.
 * The emoji font is @infolektuell's COLRv1 build: @fontsource's subsets of the same font draw
 * nothing in Chromium (checked with headless_shell 147 and Chromium 156).
 */
const bundledFonts: BundledFont[] = [
  { id: 'noto-sans-sc', pkg: '@fontsource/noto-sans-sc', files: ['400.css', '700.css'], dropFrom: 0x1f000 },
  { id: 'noto-color-emoji', pkg: '@infolektuell/noto-color-emoji', files: ['index.css'] },
  { id: 'jetbrains-mono', pkg: '@fontsource/jetbrains-mono', files: ['400.css', '700.css'] },
];

/** Font stacks themes should use (through the CSS variables of themes/_base.css). */
export const fontStacks = {
  sans: `"Noto Sans SC", "Noto Color Emoji", sans-serif`,
  mono: `"JetBrains Mono", "Noto Sans SC", "Noto Color Emoji", monospace`,
};

/** All @font-face rules, with URLs pointing at the renderer's `/fonts/` route. */
export function fontFaceCss(): string {
  return bundledFonts
    .flatMap((font) =>
      font.files.map((file) => {
        const css = fs.readFileSync(path.join(nodeModulesDir, font.pkg, file), 'utf8');
        const local = css.replace(/url\(\.\/files\//g, `url(/fonts/${font.id}/files/`);
        return font.dropFrom === undefined ? local : dropCodePoints(local, font.dropFrom);
      }),
    )
    .join('\n');
}

/**
 * Maps a `/fonts/<pkg>/files/<file>` path to a file inside a bundled font package, or undefined.
 * Only known packages and plain file names are accepted, so a crafted path cannot leave them.
 */
export function resolveFontFile(urlPath: string): string | undefined {
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
