// Checks the values of mdxMode component props and turns them into CSS values. Every accepted
// value has a fixed shape (a colour, a length, a list of family names), so no prop can end a
// declaration early and add its own: `color="red; background: url(…)"` is refused, not cleaned.
import colourNames from 'color-name';

/** A prop value that is not accepted; the caller names the component and where it is. */
export class PropError extends Error {
  constructor(
    readonly prop: string,
    readonly value: string | true,
    readonly accepted: string,
  ) {
    super(`${prop}=${String(value)} is not accepted; use ${accepted}`);
    this.name = 'PropError';
  }
}

const hexColour = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const functionalColour = /^(?:rgba?|hsla?)\(\s*[\d.]+(?:deg|%)?(?:\s*[,\s/]\s*[\d.]+%?){2,3}\s*\)$/i;

export function cssColour(value: string, prop = 'color'): string {
  const colour = value.trim().toLowerCase();
  if (hexColour.test(colour) || functionalColour.test(colour) || Object.hasOwn(colourNames, colour) || colour === 'transparent' || colour === 'currentcolor') {
    return colour;
  }
  throw new PropError(prop, value, 'a CSS colour: a name such as green, #0a7, #00aa77, rgb(0 170 119) or hsl(160 100% 33%)');
}

/** HTML's <font size="1…7"> scale, in px; other numbers are px. */
const legacyFontSizes = [10, 13, 16, 18, 24, 32, 48];

export function fontSize(value: string): string {
  const trimmed = value.trim();
  if (/^[1-7]$/.test(trimmed)) return `${legacyFontSizes[Number(trimmed) - 1]}px`;
  return cssLength(trimmed, 200, 'size', 6);
}

/** A length: a bare number (px) or a number with px, em, rem or %, within [min, maxPx] px. */
export function cssLength(value: string, maxPx: number, prop = 'size', minPx = 0): string {
  const match = /^(\d{1,4}(?:\.\d{1,3})?)(px|em|rem|%)?$/.exec(value.trim());
  const amount = Number(match?.[1]);
  const unit = match?.[2] ?? 'px';
  const inPx = unit === 'px' ? amount : unit === '%' ? (amount / 100) * 16 : amount * 16;
  if (!match || inPx < minPx || inPx > maxPx) {
    throw new PropError(prop, value, `a number of px from ${minPx} to ${maxPx} (e.g. 20), or a size with px, em, rem or %`);
  }
  return `${amount}${unit}`;
}

const genericFamilies = new Set(['serif', 'sans-serif', 'monospace', 'cursive', 'fantasy', 'system-ui']);

/** Family names of letters, digits, spaces and dashes, each in single quotes (generic families stay bare). */
export function cssFontFamily(value: string): string {
  const families = value.split(',').map((family) => family.trim().replace(/^["']|["']$/g, ''));
  if (families.length === 0 || families.length > 8 || families.some((family) => !/^[\p{L}\p{N} _-]{1,60}$/u.test(family))) {
    throw new PropError('face', value, 'font family names of letters, digits, spaces and dashes, comma separated (e.g. "Noto Serif SC, serif")');
  }
  return families.map((family) => (genericFamilies.has(family.toLowerCase()) ? family.toLowerCase() : `'${family}'`)).join(', ');
}
