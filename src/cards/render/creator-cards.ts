// What the creator's front matter adds to the cards (docs/api.md#front-matter): a cover card first,
// the author line (signature) in every card's footer, and a closing card. Only structure is made
// here; themes/_base.css and each theme draw it (docs/themes.md#cover-signature-and-tags), so a cover
// wears the theme's frame, colours and heading face like the cards it introduces. Every text is
// escaped; the avatar is a data: URI (a remote one was fetched and inlined by the pipeline).
import { escapeHtml, textBlockAttributes, textHtml, titleSize } from '../cover/cover-designs.js';
import { runsRightToLeft } from '../markdown/text-direction.js';
import type { CreatorOptions } from '../request/schema.js';

/**
 * The author line: avatar, name, handle. `name` replaces the author's name (a signature text). Each
 * part takes its direction from its own letters: an Arabic line runs right to left, and a Latin
 * handle in it still reads "@name", not "name@".
 */
function authorLine(creator: CreatorOptions, className: string, name = creator.author): string {
  const parts = [
    creator.avatar ? `<img class="author-avatar" src="${escapeHtml(creator.avatar)}" alt="">` : '',
    name ? `<span class="author-name" dir="auto">${escapeHtml(name)}</span>` : '',
    creator.handle ? `<span class="author-handle" dir="auto">${escapeHtml(creator.handle)}</span>` : '',
  ].join('');
  // `dir="auto"` would skip the parts, which carry their own: the line takes the name's direction.
  const direction = runsRightToLeft(`${name ?? ''} ${creator.handle ?? ''}`) ? 'rtl' : 'ltr';
  return parts ? `<span class="${className}" dir="${direction}">${parts}</span>` : '';
}

/** The signature in a card's footer, or '' when the front matter asks for none. */
export function signatureHtml(creator: CreatorOptions | undefined): string {
  if (!creator?.signature) return '';
  return authorLine(creator, 'signature', typeof creator.signature === 'string' ? creator.signature : creator.author);
}

const tagChips = (tags: string[] | undefined) =>
  tags && tags.length > 0 ? `<p class="cover-tags">${tags.map((tag) => `<span class="hashtag">#${escapeHtml(tag)}</span>`).join('')}</p>` : '';

/** The content of the cover card (big title, subtitle, author line and date, tags), or undefined when there is none. */
export function coverContentHtml(creator: CreatorOptions | undefined, width: number, height: number): string | undefined {
  if (!creator?.cover) return undefined;
  const title = creator.title ?? '';
  const author = authorLine(creator, 'author-line');
  return (
    '<div class="cover cover-center creator-cover">' +
    (title ? `<h1 class="cover-title"${textBlockAttributes(title)} style="font-size:${titleSize(title, width * 0.82, height * 0.3, 0.2)}px">${textHtml(title)}</h1>` : '') +
    (creator.subtitle ? `<p class="cover-subtitle"${textBlockAttributes(creator.subtitle)}>${textHtml(creator.subtitle)}</p>` : '') +
    // The author line before the tags: on a cover too full for the card even once fitted
    // (cover/fit-cover.ts), what runs off is the last tags.
    (author || creator.date ? `<div class="cover-byline">${author}${creator.date ? `<span class="cover-date">${escapeHtml(creator.date)}</span>` : ''}</div>` : '') +
    tagChips(creator.tags) +
    '</div>'
  );
}

/** The content of the closing card, or undefined when there is none. */
export function endContentHtml(creator: CreatorOptions | undefined): string | undefined {
  if (!creator?.end) return undefined;
  return `<div class="cover cover-center creator-end"><p class="end-text"${textBlockAttributes(creator.end)}>${textHtml(creator.end)}</p>${authorLine(creator, 'author-line')}</div>`;
}
