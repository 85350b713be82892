// The document every render page loads once and keeps: base CSS, every theme's CSS, and the
// faces of the characters the base CSS and the most common texts use (page-fonts.ts adds the
// others, a theme's decorations among them, as cards need them). A request then only swaps the
// cards inside #cards, so no CSS is parsed and no font is fetched twice (a fresh document per
// request costs 190–420 ms here; a swap costs a few ms).
import fs from 'node:fs';
import path from 'node:path';
import { katexCss } from '../markdown/math.js';
import { builtinThemesDir } from '../../paths.js';
import type { ThemeRegistry } from '../themes/registry.js';
import { type ShellFonts, shellFonts } from './page-fonts.js';

/** The page's origin. `.invalid` can never resolve, and every request to it is answered by us. */
export const shellOrigin = 'http://cardwright.invalid';

export interface RenderShell {
  /** The document every render page opens with. */
  html: string;
  /** The faces it declares, and the characters they were chosen for: each page goes on from there. */
  fonts: ShellFonts;
}

export function buildShellDocument(themes: ThemeRegistry): RenderShell {
  const baseCss = fs.readFileSync(path.join(builtinThemesDir, '_base.css'), 'utf8');
  // After every theme: the request options (weChatMode, background) restyle whichever theme is used.
  const requestOptionsCss = fs.readFileSync(path.join(builtinThemesDir, '_request-options.css'), 'utf8');
  // Cover layouts (POST /api/generate/cover) sit inside any theme's card.
  const coverCss = fs.readFileSync(path.join(builtinThemesDir, '_cover.css'), 'utf8');
  const styles = [katexCss(), baseCss, themes.allCss(), coverCss, requestOptionsCss];
  // The characters the shell's own CSS draws; each theme's (decorations drawn with `content`) come
  // with its first cards (page-fonts.ts), and the warm-up card brings its own.
  const fonts = shellFonts([baseCss, coverCss, requestOptionsCss].join('\n'), themes.themes);
  const html = [
    '<!doctype html><html><head><meta charset="utf-8">',
    `<style>${fonts.rules}</style>`,
    ...styles.map((css) => `<style>${css}</style>`),
    '</head><body><div id="cards"></div></body></html>',
  ].join('\n');
  return { html, fonts };
}

/** A plain card around `content`, as the warm-up cards are laid out. */
const warmUpCard = (content: string) =>
  '<div class="card card-plain-notes light-mode" style="--card-width:440px;--card-height:586px">' +
  `<section class="card-header"></section><section class="card-content"><div class="card-content-inner">${content}</div></section>` +
  '<section class="card-footer"><section class="card-footer-inner"><span class="page">1/1</span></section></section></div>';

/**
 * Rendered and captured once when a page opens, so the fonts nearly every card uses (Latin
 * regular, bold and italic, monospace, KaTeX) are loaded, a code block has been laid out and the
 * capture path is warm before the first request: otherwise the first card of each page pays for
 * them (about 100 ms here).
 */
export const warmUpMarkup = warmUpCard(
  '<h1>Hello, cardwright</h1><p>The quick brown fox <strong>jumps</strong> <em>over</em> <code>lazy()</code></p>' +
    // KaTeX's most used faces (upright, math italic, and the large operators of a sum or integral
    // inline and displayed), so a first formula does not fetch them.
    '<p><span class="katex"><span class="mord">1</span><span class="mord mathnormal">x</span>' +
    '<span class="mop op-symbol small-op">∑</span><span class="mop op-symbol large-op">∑</span></span></p>' +
    // A highlighted code block as markdown/code-blocks.ts writes it: its frame, header and token rules
    // are laid out once here rather than in the first card with code (about 40 ms of that card).
    '<pre class="code-block shiki"><div class="code-header"><span class="code-dots"><span class="code-dot"></span>' +
    '<span class="code-dot"></span><span class="code-dot"></span></span><span class="code-lang">Python</span></div>' +
    '<code><span class="line"><span style="--shiki-light:#D73A49;--shiki-dark:#F97583">print</span>' +
    '<span style="--shiki-light:#24292E;--shiki-dark:#E1E4E8">(x)</span></span></code></pre>',
);

/**
 * The rest of a page's warm-up: the most frequent Chinese characters (regular and bold, the
 * subsets of most Chinese cards) and emoji. Decoding those faces is most of a warm-up's time, so
 * the first page at start takes it only once the service is ready and quiet (page-pool.ts).
 */
export const scriptsWarmUpMarkup = warmUpCard(
  '<h1>你好，cardwright</h1><p>🚀✨✅</p>' +
    '<p>的一是了我不人在他有这个上们来到时大地为子中你说生国年着就那和要她出也得里后自以会家可下而过天去能对小多然于心学么之都好看起发当没成只如事把还用第样道想作种开美总从无情己面最女但现前些所同日手又行意动方期它头经长儿回位分爱老因很给名法间斯知世什两次使身者被高已亲其进此话常与活正感</p>' +
    '<p><strong>重点：排版、主题、拆分、发布、内容、卡片、知识、分享</strong></p>',
);
