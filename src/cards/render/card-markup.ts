// The HTML of one card, following the card DOM contract (docs/themes.md#card-dom-contract), so themes written for
// the reference service port over unchanged.
import type { Theme } from '../themes/theme-file.js';

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
}

export function cardMarkup(options: CardMarkupOptions): string {
  const classes = ['card', 'markdown-body', options.theme.className];
  if (options.mode) classes.push(options.mode);
  if (options.fixedHeight) classes.push('fixed-height');
  return (
    `<div class="${classes.join(' ')}" style="--card-width:${options.width}px;--card-height:${options.height}px">` +
    '<section class="card-header"></section>' +
    `<section class="card-content"><div class="card-content-inner">${options.contentHtml}</div></section>` +
    `<section class="card-footer"><section class="card-footer-inner"><span class="page">${options.pageLabel ?? ''}</span></section></section>` +
    '</div>'
  );
}
