// The cover designs of POST /api/generate/cover: the HTML inside a card of the chosen theme, so a
// cover wears the theme's frame, colours and heading face like the cards it introduces. No AI is
// involved: each design is a fixed layout (themes/_cover.css) of the title and the keywords, with
// the title's size computed from its length and the card's size so it fills its space.
import { cjkShare } from '../markdown/cjk-blocks.js';
import { hasCjkLetters, holdTogether, phraseBreaks } from '../markdown/cjk-phrases.js';
import type { CoverRequest } from '../request/cover-schema.js';

export interface CoverDesign {
  /** Class of the design's root (themes/_cover.css). */
  name: 'cover-center' | 'cover-poster' | 'cover-stack';
  html: string;
}

export const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The attributes the Markdown stage gives a text block (markdown/cjk-blocks.ts, text-direction.ts,
 * cjk-phrase-breaks.ts), for a cover's texts, which are not Markdown: a Korean title breaks between
 * words, not syllables, a Chinese or Japanese one between phrases, and an Arabic one runs right to left.
 */
export function textBlockAttributes(text: string): string {
  const share = cjkShare(text);
  return ` dir="auto"${share.cjk ? ' data-cjk' : ''}${share.korean ? ' data-korean' : ''}${hasCjkLetters(text) ? ' data-phrases' : ''}`;
}

/**
 * A cover text as HTML: escaped, with a <wbr> where a Chinese or Japanese line may break
 * (markdown/cjk-phrases.ts) and its last characters held together, as the Markdown stage does for
 * a card's text. Parts with `mark` are drawn highlighted (keywords, which the caller keeps whole).
 */
export function textHtml(parts: Array<{ text: string; mark?: boolean }> | string): string {
  const pieces = typeof parts === 'string' ? [{ text: parts }] : parts;
  const whole = pieces.map((part) => part.text).join('');
  const { breaks, keepTogetherFrom } = phraseBreaks(whole, 'characters');
  // A piece of text as drawn: what lies past the held-together end is held.
  const drawn = (from: number, to: number) =>
    from >= keepTogetherFrom ? holdTogether(whole.slice(from, to)) : to <= keepTogetherFrom ? whole.slice(from, to) : whole.slice(from, keepTogetherFrom) + holdTogether(whole.slice(keepTogetherFrom, to));
  let start = 0;
  return pieces
    .map(({ text, mark }) => {
      const end = start + text.length;
      const cuts = [start, ...(mark ? [] : breaks.filter((offset) => offset > start && offset < end)), end];
      const html = cuts.slice(1).map((cut, index) => escapeHtml(drawn(cuts[index]!, cut))).join('<wbr>');
      // A break right before a keyword goes before its highlight.
      const before = breaks.includes(start) ? '<wbr>' : '';
      start = end;
      return before + (mark ? `<mark>${html}</mark>` : html);
    })
    .join('');
}

/** The first `count` designs, each a different layout. */
export function coverDesigns(request: CoverRequest): CoverDesign[] {
  const [title, ...subtitleLines] = request.text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  const subtitle = subtitleLines.join(' ');
  const designs: CoverDesign[] = [centered(request, title!, subtitle), poster(request, title!, subtitle), stacked(request, title!, subtitle)];
  return designs.slice(0, request.count);
}

/** 1. Centred: the title in the middle, keywords as highlighted pills below it. */
function centered(request: CoverRequest, title: string, subtitle: string): CoverDesign {
  const size = titleSize(title, request.width * 0.82, request.height * 0.42, 0.2);
  return {
    name: 'cover-center',
    html:
      `<div class="cover cover-center"><h1 class="cover-title"${textBlockAttributes(title)} style="font-size:max(16px, calc(${size}px * var(--cover-fit, 1)))">${highlighted(title, request.keywords)}</h1>` +
      (subtitle ? `<p class="cover-subtitle"${textBlockAttributes(subtitle)}>${textHtml(subtitle)}</p>` : '') +
      tags(request.keywords, 'cover-tags cover-tags-filled') +
      '</div>',
  };
}

/** 2. Poster: a kicker (the first keyword), a huge left-aligned title with its keywords marked, tags at the foot. */
function poster(request: CoverRequest, title: string, subtitle: string): CoverDesign {
  const size = titleSize(title, request.width * 0.86, request.height * 0.4, 0.24);
  const [kicker] = request.keywords;
  return {
    name: 'cover-poster',
    html:
      '<div class="cover cover-poster">' +
      (kicker ? `<p class="cover-kicker">${escapeHtml(kicker)}</p>` : '') +
      `<h1 class="cover-title"${textBlockAttributes(title)} style="font-size:max(16px, calc(${size}px * var(--cover-fit, 1)))">${highlighted(title, request.keywords)}</h1>` +
      '<div class="cover-rule"></div>' +
      (subtitle ? `<p class="cover-subtitle"${textBlockAttributes(subtitle)}>${textHtml(subtitle)}</p>` : '') +
      tags(request.keywords, 'cover-tags cover-tags-hash') +
      '</div>',
  };
}

/** 3. Stacked: the keywords large and highlighted on top, a hairline, the title at the foot. */
function stacked(request: CoverRequest, title: string, subtitle: string): CoverDesign {
  const size = titleSize(title, request.width * 0.8, request.height * 0.32, 0.16);
  const band = request.keywords.slice(0, 3).map((keyword) => `<mark>${escapeHtml(keyword)}</mark>`).join(' ');
  return {
    name: 'cover-stack',
    html:
      '<div class="cover cover-stack">' +
      (band ? `<p class="cover-band">${band}</p>` : '<p class="cover-band cover-band-mark">“</p>') +
      '<div class="cover-rule"></div>' +
      `<h1 class="cover-title"${textBlockAttributes(title)} style="font-size:max(16px, calc(${size}px * var(--cover-fit, 1)))">${highlighted(title, request.keywords)}</h1>` +
      (subtitle ? `<p class="cover-subtitle"${textBlockAttributes(subtitle)}>${textHtml(subtitle)}</p>` : '') +
      tags(request.keywords.slice(3), 'cover-tags cover-tags-outline') +
      '</div>',
  };
}

/** The title with every keyword it contains wrapped in <mark> (the theme's highlighter). */
function highlighted(title: string, keywords: string[]): string {
  const present = keywords.filter((keyword) => title.toLowerCase().includes(keyword.toLowerCase())).sort((a, b) => b.length - a.length);
  if (present.length === 0) return textHtml(title);
  const pattern = new RegExp(`(${present.map((keyword) => keyword.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`, 'gi');
  return textHtml(title.split(pattern).map((text, index) => ({ text, mark: index % 2 === 1 })));
}

function tags(keywords: string[], className: string): string {
  if (keywords.length === 0) return '';
  return `<p class="${className}">${keywords.map((keyword) => `<span class="cover-tag">${escapeHtml(keyword)}</span>`).join('')}</p>`;
}

/** Estimated width of `text` in em: CJK glyphs are about 1 em wide and Latin ones about 0.55 em. */
const ems = (text: string) => [...text].reduce((sum, char) => sum + (/[\u2e80-\u9fff\uac00-\ud7af\uff00-\uffef]/.test(char) ? 1 : char === ' ' ? 0.3 : 0.58), 0);

/** The widest piece of `title` that never breaks (a word, a CJK phrase, a 《title》), in em. */
function widestUnbreakable(title: string): number {
  const { breaks } = phraseBreaks(title, 'none');
  const pieces = [0, ...breaks].map((start, index) => title.slice(start, breaks[index] ?? title.length));
  return Math.max(0, ...pieces.flatMap((piece) => piece.split(/\s+/u)).map(ems));
}

/**
 * A font size (px) at which `title` fills about `fill` of a `width` × `height` box, lines about
 * 1.2 em tall. Capped so a short title does not become one giant word and so its widest unbreakable
 * piece fits the line (`width` is already a share of the card), and floored for legibility.
 */
export function titleSize(title: string, width: number, height: number, maxOfWidth: number): number {
  const fitting = Math.sqrt((width * height * 0.7) / (Math.max(ems(title), 1) * 1.25));
  const widest = width / Math.max(widestUnbreakable(title), 1);
  return Math.round(Math.max(18, Math.min(fitting, widest, width * maxOfWidth, 120)));
}
