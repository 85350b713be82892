// Text contrast measured on rendered pixels, the way WCAG defines it: the paper is the most
// frequent colour of a text area, the ink the colour of the glyph cores furthest from it.
import { pixel, type DecodedPng } from './images.js';

export type Rgb = [number, number, number];

/** A rectangle in CSS px; `scale` turns it into image pixels. */
export interface Area {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function relativeLuminance([r, g, b]: Rgb): number {
  const channel = (value: number) => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

export function contrastRatio(a: Rgb, b: Rgb): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** Colours of an area (quantised to 64 levels per channel), most frequent first. */
function colourCounts(png: DecodedPng, area: Area, scale: number): Array<{ rgb: Rgb; count: number }> {
  const counts = new Map<number, number>();
  for (let y = area.y * scale; y < (area.y + area.height) * scale; y++) {
    for (let x = area.x * scale; x < (area.x + area.width) * scale; x++) {
      const [r, g, b] = pixel(png, x, y);
      const key = ((r >> 2) << 16) | ((g >> 2) << 8) | (b >> 2);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return [...counts]
    .map(([key, count]) => ({ rgb: [((key >> 16) & 63) << 2, ((key >> 8) & 63) << 2, (key & 63) << 2] as Rgb, count }))
    .sort((a, b) => b.count - a.count);
}

/**
 * The paper is the most frequent colour of a text area; the ink is the colour furthest from it in
 * contrast among colours frequent enough to be glyph cores rather than anti-aliasing fringes.
 */
export function paperAndInk(png: DecodedPng, area: Area, scale: number): { paper: Rgb; ink: Rgb; ratio: number } {
  const colours = colourCounts(png, area, scale);
  const paper = colours[0]!.rgb;
  const total = area.width * area.height * scale * scale;
  const candidates = colours.filter((colour) => colour.count >= total * 0.002);
  const ink = candidates.reduce((best, colour) => (contrastRatio(colour.rgb, paper) > contrastRatio(best, paper) ? colour.rgb : best), paper);
  return { paper, ink, ratio: contrastRatio(paper, ink) };
}
