// The HTML of one card, following the card DOM contract (docs/themes.md#card-dom-contract), so themes written for
// the reference service port over unchanged.
import type { Watermark } from '../request/watermark.js';
import type { Theme } from '../themes/theme-file.js';
import { watermarkHtml } from './watermark-markup.js';

export interface CardMarkupOptions {
  theme: Theme;
  mode?: string;
  width: number;
  height: number;
  /** Exactly `height` tall (clipped) instead of growing with the content. */
  fixedHeight: boolean;
  /** Sanitized HTML for `.card-content-inner`. */
  contentHtml: string;
  /** "2/5"-style page label drawn in the footer; empty for a single card. */
  pageLabel?: string;
  /** WeChat article layout: no frame or outer decoration, as tall as the content (themes/_request-options.css). */
  wechat?: boolean;
  /** A checked CSS colour or gradient (request/background.ts) that replaces the theme's outer background. */
  background?: string;
  /** The request's fontScale (default 1); see cardGeometry. */
  fontScale?: number;
  /** A bundled face for the body text instead of the theme's (themes/_request-options.css). */
  fontFamily?: string;
  /** The creator's mark, drawn over the content area (watermark-markup.ts). */
  watermark?: Watermark;
  /** Escaped markup drawn in the footer before the page label: the signature (creator-cards.ts). */
  footerHtml?: string;
  /** What kind of card beyond the content: `cover-card` or `end-card` (docs/themes.md#cover-signature-and-tags). */
  kind?: 'cover-card' | 'end-card';
}

/**
 * How a card of `width`×`height` image px (per unit of `scale`) is laid out at `fontScale`: as a card
 * of width/fontScale × height/fontScale CSS px captured at scale × fontScale device px per CSS px.
 * Every length of a theme (type, spacing, borders, decorations) is thereby multiplied by fontScale
 * while the image keeps the requested size, and pagination, which measures in CSS px, is unchanged.
 */
export function cardGeometry(width: number, height: number, scale: number, fontScale = 1): { width: number; height: number; deviceScale: number } {
  return { width: width / fontScale, height: height / fontScale, deviceScale: scale * fontScale };
}

export function cardMarkup(options: CardMarkupOptions): string {
  const classes = ['card', 'markdown-body', options.theme.className];
  if (options.mode) classes.push(options.mode);
  if (options.fixedHeight && !options.wechat) classes.push('fixed-height');
  if (options.wechat) classes.push('wechat');
  if (options.kind) classes.push(options.kind);
  if (options.fontFamily) classes.push(`font-family-${options.fontFamily}`);
  const fontScale = options.fontScale ?? 1;
  const { width, height } = cardGeometry(options.width, options.height, 1, fontScale);
  // --font-scale lets a theme keep a hairline a hairline: calc(1px / var(--font-scale)).
  const scaleProperty = fontScale === 1 ? '' : `;--font-scale:${fontScale}`;
  // The background has passed checkBackground, whose alphabet has no quote, semicolon or angle
  // bracket, so it cannot leave the attribute or the declaration; escaped all the same.
  const background = options.background ? `;--card-background:${escapeAttribute(options.background)}` : '';
  if (options.background) classes.push('custom-background');
  return (
    `<div class="${classes.join(' ')}" style="--card-width:${width}px;--card-height:${height}px${scaleProperty}${background}">` +
    '<section class="card-header"></section>' +
    `<section class="card-content"><div class="card-content-inner">${options.contentHtml}</div>${watermarkHtml(options.watermark)}</section>` +
    `<section class="card-footer"><section class="card-footer-inner">${options.footerHtml ?? ''}<span class="page">${options.pageLabel ?? ''}</span></section></section>` +
    '</div>'
  );
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
