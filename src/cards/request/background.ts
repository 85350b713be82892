// Checks the `background` field: a CSS colour or gradient that replaces the theme's outer
// background. Only values built from colours, gradient functions, numbers and gradient keywords
// pass, so nothing can load a resource (url(), image-set(), image(), cross-fade(), element(),
// paint(), var()/env()/attr() indirection) or leave the declaration (quotes, `;`, braces,
// backslashes and comments are outside the alphabet). The browser then confirms the value is
// valid CSS (see checkBackgroundInPage in render/render-cards.ts), so it never silently does nothing.
import colourNames from 'color-name';
import { invalidRequest } from '../errors.js';

export const backgroundMaxLength = 400;

const accepted =
  'a CSS colour (#f5e6d3, rgb(245 230 211), hsl(30 60% 90%), a colour name) or gradient ' +
  '(linear-gradient(135deg, #ffecd2, #fcb69f), radial-gradient(…), conic-gradient(…), their repeating- forms), ' +
  'or several comma-separated gradients; nothing that loads a resource (url(), image-set() and the like)';

const functions = new Set([
  'rgb', 'rgba', 'hsl', 'hsla', 'hwb', 'lab', 'lch', 'oklab', 'oklch', 'color', 'color-mix',
  'linear-gradient', 'radial-gradient', 'conic-gradient',
  'repeating-linear-gradient', 'repeating-radial-gradient', 'repeating-conic-gradient',
]);

/** Words a colour or gradient may contain besides colour names: directions, shapes, sizes, colour spaces. */
const keywords = new Set([
  'transparent', 'currentcolor', 'none',
  'to', 'at', 'from', 'in', 'top', 'bottom', 'left', 'right', 'center',
  'circle', 'ellipse', 'closest-side', 'closest-corner', 'farthest-side', 'farthest-corner',
  'srgb', 'srgb-linear', 'display-p3', 'a98-rgb', 'prophoto-rgb', 'rec2020', 'xyz', 'xyz-d50', 'xyz-d65',
  'hsl', 'hwb', 'lab', 'lch', 'oklab', 'oklch', 'shorter', 'longer', 'increasing', 'decreasing', 'hue',
]);

const units = new Set(['', '%', 'deg', 'grad', 'rad', 'turn', 'px', 'em', 'rem', 'vw', 'vh', 'vmin', 'vmax']);

/** Returns the value, trimmed, when it is a colour or gradient; otherwise a 400 that says what is accepted. */
export function checkBackground(value: string): string {
  const background = value.trim();
  const refuse = (reason: string) => invalidRequest(`background is not accepted: got ${describe(background)}; ${reason}. Accepted: ${accepted}.`);
  if (background.length > backgroundMaxLength) throw refuse(`it is longer than ${backgroundMaxLength} characters`);
  const resource = /\b(url|image-set|image|cross-fade|element|paint|src|var|env|attr|expression)\s*\(/i.exec(background);
  if (resource) throw refuse(`${resource[1]!.toLowerCase()}() is not allowed: the card loads nothing and follows no reference`);
  const odd = /[^a-zA-Z0-9#%.,()\s+\-/]/.exec(background);
  if (odd) throw refuse(`the character ${JSON.stringify(odd[0])} cannot be part of a colour or gradient`);

  let depth = 0;
  const token = /\s*(?:(#[0-9a-f]+)(?![\w-])|([a-z][a-z0-9-]*)(\()?|([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)([a-z%]*)|([(),/]))/giy;
  let position = 0;
  while (position < background.length) {
    token.lastIndex = position;
    const match = token.exec(background);
    if (!match) {
      if (/^\s*$/.test(background.slice(position))) break;
      throw refuse(`"${background.slice(position, position + 12)}" is not part of a colour or gradient`);
    }
    position = token.lastIndex;
    const [, hex, word, call, number, unit, punctuation] = match;
    if (hex !== undefined) {
      if (![4, 5, 7, 9].includes(hex.length)) throw refuse(`${hex} is not a hex colour (#rgb, #rgba, #rrggbb or #rrggbbaa)`);
    } else if (word !== undefined) {
      const name = word.toLowerCase();
      if (call) {
        if (!functions.has(name)) throw refuse(`${name}() is not a colour or gradient function`);
        depth++;
        if (depth > 3) throw refuse('its functions are nested too deeply');
      } else if (!keywords.has(name) && !Object.hasOwn(colourNames, name)) {
        throw refuse(`"${word}" is not a colour name or gradient keyword`);
      }
    } else if (number !== undefined) {
      if (!units.has((unit ?? '').toLowerCase())) throw refuse(`"${number}${unit}" has a unit a colour or gradient does not take`);
    } else if (punctuation === '(') {
      throw refuse('a parenthesis opens without a function name');
    } else if (punctuation === ')') {
      depth--;
      if (depth < 0) throw refuse('a parenthesis closes that was never opened');
    }
  }
  if (depth !== 0) throw refuse('a parenthesis is not closed');
  if (background === '') throw refuse('it is empty');
  return background;
}

function describe(value: string): string {
  return value.length > 60 ? `a string of ${value.length} characters` : JSON.stringify(value);
}
