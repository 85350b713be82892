// The markup of a request's watermark (request/watermark.ts), put in every card's .card-content
// after .card-content-inner (card-markup.ts). Its box is absolutely positioned over .card-content
// with the same padding (themes/_base.css), so it takes no part in the layout the pagination
// measures, and the mark lies in the content area: never over the header or the footer with its
// signature and page label, nor in padding a theme clips. It is drawn in the content's own text
// colour, so it is in every theme's colours.
//
// A tiled mark is an inline SVG whose pattern repeats the mark over the whole content area, however
// tall a noSplit card grows, with no script and no copies counted in advance. Inline (not a
// background image) so its text is drawn in the page's own faces: an SVG image may use none.
import { escapeHtml } from '../cover/cover-designs.js';
import { dataImageSize } from '../request/data-image.js';
import type { Watermark } from '../request/watermark.js';

/** The id of the tiled mark's pattern; every card of a request draws the same one. */
const tileId = 'card-watermark-tile';

/** A logo is drawn this many times the text's size tall. */
const imageHeightInSizes = 2;

/**
 * The markup of each watermark drawn so far. Every card (and every layout pagination tries) carries
 * the same markup, and a tiled mark decodes the logo's header for its aspect: made once per request.
 */
const markupOfWatermark = new WeakMap<Watermark, string>();

export function watermarkHtml(watermark: Watermark | undefined): string {
  if (!watermark) return '';
  let html = markupOfWatermark.get(watermark);
  if (html === undefined) {
    html = markup(watermark);
    markupOfWatermark.set(watermark, html);
  }
  return html;
}

function markup(watermark: Watermark): string {
  // Numbers the schema bounded: nothing else enters the style attribute.
  const style = `--watermark-opacity:${watermark.opacity};--watermark-size:${watermark.size}px`;
  const image = watermark.image ? `<img class="watermark-image" src="${escapeHtml(watermark.image)}" alt="">` : '';
  const text = watermark.text ? `<span class="watermark-text" dir="auto">${escapeHtml(watermark.text)}</span>` : '';
  const mark = watermark.position === 'tiled' ? tiles(watermark) : `<span class="watermark-mark">${image}${text}</span>`;
  return `<div class="card-watermark watermark-${watermark.position}" aria-hidden="true" style="${style}">${mark}</div>`;
}

/**
 * One mark per tile of a pattern turned by -30°: the image, then the text, centred on the tile's
 * middle line. The pattern cannot grow with its text, so the text's width is estimated generously
 * (a wide character 1 em, any other 0.7 em) and the gap between marks absorbs the rest.
 */
function tiles(watermark: Watermark): string {
  const { size } = watermark;
  const imageHeight = watermark.image ? size * imageHeightInSizes : 0;
  const aspect = watermark.image ? aspectOf(watermark.image) : 0;
  const imageWidth = imageHeight * aspect;
  const textWidth = watermark.text ? estimatedEms(watermark.text) * size : 0;
  const between = imageWidth > 0 && textWidth > 0 ? size * 0.4 : 0;
  const markWidth = imageWidth + between + textWidth;
  const tileWidth = round(markWidth + size * 4);
  const tileHeight = round(Math.max(imageHeight, size * 1.4) + size * 3.5);
  const middle = round(tileHeight / 2);
  const image = watermark.image
    ? `<image href="${escapeHtml(watermark.image)}" x="0" y="${round(middle - imageHeight / 2)}" width="${round(imageWidth)}" height="${round(imageHeight)}"/>`
    : '';
  const text = watermark.text
    ? `<text x="${round(imageWidth + between)}" y="${middle}" dominant-baseline="central">${escapeHtml(watermark.text)}</text>`
    : '';
  return (
    '<svg class="watermark-tiles">' +
    `<pattern id="${tileId}" patternUnits="userSpaceOnUse" width="${tileWidth}" height="${tileHeight}" patternTransform="rotate(-30)">${image}${text}</pattern>` +
    `<rect width="100%" height="100%" fill="url(#${tileId})"/></svg>`
  );
}

/** Width over height of the image, as its header declares (checked when the request was read). */
function aspectOf(image: string): number {
  const pixels = dataImageSize(image);
  return pixels ? pixels.width / pixels.height : 1;
}

/** Characters drawn about 1 em wide: CJK, Hangul, full-width forms, emoji. */
const wideCharacter = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|\p{Extended_Pictographic}/u;

function estimatedEms(text: string): number {
  return Array.from(text).reduce((ems, character) => ems + (wideCharacter.test(character) ? 1 : 0.7), 0);
}

const round = (value: number) => Math.round(value * 100) / 100;
