// A valid cover body → the cover request the cover stage reads: the card request's defaults and
// rounding (normalize.ts), keywords as a list of distinct, trimmed words.
import { invalidRequest } from '../errors.js';
import { coverLimits, type CoverBodyInput, type CoverRequest } from './cover-schema.js';
import { normalizeRequest } from './normalize.js';

/** Separators clients use in one keywords string: commas (also full-width), 、, | and line breaks. */
const keywordSeparators = /[,，、|｜\n]+/;

export function normalizeCoverRequest(body: CoverBodyInput): CoverRequest {
  const { theme, themeMode, width, height, format, scale, background, watermark } = normalizeRequest({
    theme: body.theme,
    themeMode: body.themeMode,
    width: body.width,
    height: body.height,
    format: body.format,
    scale: body.scale,
    background: body.background,
    watermark: body.watermark,
  });
  const given = typeof body.keywords === 'string' ? body.keywords.split(keywordSeparators) : (body.keywords ?? []);
  const keywords = [...new Set(given.map((keyword) => keyword.trim()).filter((keyword) => keyword !== ''))].slice(0, coverLimits.keywordsMax);
  // The schema bounds each keyword of a list; one of a string is bounded here, once it is split off.
  const tooLong = keywords.find((keyword) => keyword.length > coverLimits.keywordMaxLength);
  if (tooLong !== undefined) {
    throw invalidRequest(
      `keywords is not accepted: got a keyword of ${tooLong.length} characters; accepted: keywords of at most ${coverLimits.keywordMaxLength} characters each.`,
    );
  }
  // Some MD2Card clients escape the line break twice and send a backslash and an n: the break they mean.
  const text = body.text.replace(/\\n/g, '\n').trim();
  if (text === '') throw invalidRequest('text is not accepted: got only white space; accepted: the cover title, at least one visible character.');
  return {
    text,
    keywords,
    count: body.count ?? coverLimits.count.default,
    theme,
    themeMode,
    width,
    height,
    format,
    scale,
    background,
    watermark,
  };
}
