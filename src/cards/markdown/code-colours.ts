// Token colours that stay readable on every theme's code panel. A theme declares whether its
// panel is light or dark (`--code-panel`, themes/README.md §3) and promises the panel's
// luminance bound below; each token colour of Shiki's light and dark palettes is darkened or
// lightened just enough to reach WCAG AA (4.5:1) against the worst panel of its kind, a
// highlighted line included. Colours that already pass are left exactly as Shiki draws them.

/** Relative luminance (WCAG 2) of the palest light panel and of the brightest dark panel, highlight included. */
export const panelLuminance = { light: 0.55, dark: 0.06 } as const;
const minimumContrast = 4.5;

type Rgb = [number, number, number];

function luminance([r, g, b]: Rgb): number {
  const channel = (value: number) => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

/** The colour moved towards black (light panels) or white (dark panels) until it reads at 4.5:1. */
export function readableOn(panel: 'light' | 'dark', hex: string): string {
  const rgb = parseHex(hex);
  if (!rgb) return hex;
  const passes = (colour: Rgb) => contrast(luminance(colour), panelLuminance[panel]) >= minimumContrast;
  if (passes(rgb)) return hex;
  const target = panel === 'light' ? 0 : 255;
  const mix = (t: number): Rgb => rgb.map((value) => Math.round(value + (target - value) * t)) as Rgb;
  let [low, high] = [0, 1];
  for (let step = 0; step < 16; step++) {
    const middle = (low + high) / 2;
    if (passes(mix(middle))) high = middle;
    else low = middle;
  }
  return `#${mix(high).map((value) => value.toString(16).padStart(2, '0')).join('')}${hex.length === 9 ? hex.slice(7) : ''}`;
}

function parseHex(hex: string): Rgb | undefined {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})(?:[0-9a-f]{2})?$/i.exec(hex);
  return match ? [parseInt(match[1]!, 16), parseInt(match[2]!, 16), parseInt(match[3]!, 16)] : undefined;
}

/**
 * Shiki `colorReplacements` for one of its themes: every colour the theme uses, mapped to its
 * readable version for a panel of that kind.
 */
export function readableReplacements(theme: unknown, panel: 'light' | 'dark'): Record<string, string> {
  const replacements: Record<string, string> = {};
  for (const [colour] of JSON.stringify(theme).matchAll(/#[0-9a-f]{6}(?:[0-9a-f]{2})?\b/gi)) {
    const key = colour.toLowerCase();
    const readable = readableOn(panel, key);
    if (readable !== key) replacements[key] = readable;
  }
  return replacements;
}
