// The document every render page loads once and keeps: fonts, base CSS and every theme's CSS.
// A request then only swaps the cards inside #cards, so no CSS is parsed and no font is fetched
// twice (a fresh document per request costs 190–420 ms here; a swap costs a few ms).
import fs from 'node:fs';
import path from 'node:path';
import { builtinThemesDir } from '../paths.js';
import { fontFaceCss } from '../themes/fonts.js';
import type { ThemeRegistry } from '../themes/registry.js';

/** The page's origin. `.invalid` can never resolve, and every request to it is answered by us. */
export const shellOrigin = 'http://cardwright.invalid';

export function buildShellDocument(themes: ThemeRegistry): string {
  const baseCss = fs.readFileSync(path.join(builtinThemesDir, '_base.css'), 'utf8');
  return [
    '<!doctype html><html><head><meta charset="utf-8">',
    `<style>${fontFaceCss()}</style>`,
    `<style>${baseCss}</style>`,
    `<style>${themes.allCss()}</style>`,
    '</head><body><div id="cards"></div></body></html>',
  ].join('\n');
}
