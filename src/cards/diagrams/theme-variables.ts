// A card theme's colours as Mermaid's themeVariables for its 'base' theme, so a diagram looks like
// part of the card it sits on. The colours are read from a sample card of the theme laid out in the
// diagram page (diagram-page.ts): any theme, built-in or custom, gives its own palette without
// declaring anything for diagrams.

/** sRGB channels 0–255 and alpha 0–1. */
export type Rgba = [number, number, number, number];

/** What the sample card shows; every colour opaque, as drawn. */
export interface ThemePalette {
  background: Rgba;
  text: Rgba;
  heading: Rgba;
  link: Rgba;
  quoteBorder: Rgba;
  fontFamily: string;
  fontSizePx: number;
}

const hex = ([r, g, b]: Rgba) => `#${[r, g, b].map((channel) => Math.round(channel).toString(16).padStart(2, '0')).join('')}`;

/** `a` moved `amount` (0–1) of the way to `b`. */
const mix = (a: Rgba, b: Rgba, amount: number): Rgba => [0, 1, 2].map((i) => a[i]! + (b[i]! - a[i]!) * amount).concat(1) as Rgba;

function luminance([r, g, b]: Rgba): number {
  const linear = (channel: number) => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

const contrast = (a: Rgba, b: Rgba) => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
};

function saturation([r, g, b]: Rgba): number {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  return max === 0 ? 0 : (max - min) / max;
}

function hue([r, g, b]: Rgba): number {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  if (max === min) return 0;
  const d = max - min;
  const h = max === r ? (g - b) / d + (g < b ? 6 : 0) : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return h * 60;
}

function fromHsl(h: number, s: number, l: number): Rgba {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => 255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1)));
  return [f(0), f(8), f(4), 1];
}

/**
 * The theme's accent: the most colourful of its link, heading and quote colours that still stands
 * out from the background; the text colour when the theme has none.
 */
function accentOf(palette: ThemePalette): Rgba {
  const candidates = [palette.link, palette.heading, palette.quoteBorder].filter((colour) => contrast(colour, palette.background) >= 2);
  if (candidates.length === 0) return palette.text;
  return candidates.reduce((best, colour) => (saturation(colour) > saturation(best) + 0.05 ? colour : best));
}

/** Slice and section colours (pie, mindmap, timeline): the accent's hue turned around the wheel. */
function seriesColours(accent: Rgba, dark: boolean, count: number): Rgba[] {
  const start = hue(accent);
  const s = Math.max(0.45, Math.min(0.75, saturation(accent)));
  return Array.from({ length: count }, (_, i) => fromHsl((start + i * 137.5) % 360, s, dark ? 0.38 : 0.78));
}

export function mermaidThemeVariables(palette: ThemePalette): Record<string, string | boolean> {
  const { background, text, heading } = palette;
  const dark = luminance(background) < 0.3;
  const accent = accentOf(palette);
  const nodeFill = mix(background, accent, dark ? 0.22 : 0.12);
  const secondFill = mix(background, heading, dark ? 0.16 : 0.08);
  const quietFill = mix(background, text, 0.05);
  const line = mix(background, text, 0.75);
  const border = mix(background, accent, 0.85);
  const series = seriesColours(accent, dark, 12);
  const seriesText = dark ? '#ffffff' : hex(mix(text, [0, 0, 0, 1], 0.3));
  const variables: Record<string, string | boolean> = {
    darkMode: dark,
    background: hex(background),
    fontFamily: palette.fontFamily,
    fontSize: `${palette.fontSizePx}px`,
    primaryColor: hex(nodeFill),
    primaryTextColor: hex(text),
    primaryBorderColor: hex(border),
    secondaryColor: hex(secondFill),
    secondaryTextColor: hex(text),
    secondaryBorderColor: hex(border),
    tertiaryColor: hex(quietFill),
    tertiaryTextColor: hex(text),
    tertiaryBorderColor: hex(line),
    lineColor: hex(line),
    textColor: hex(text),
    titleColor: hex(heading),
    mainBkg: hex(nodeFill),
    nodeBorder: hex(border),
    nodeTextColor: hex(text),
    clusterBkg: hex(quietFill),
    clusterBorder: hex(line),
    edgeLabelBackground: hex(background),
    noteBkgColor: hex(secondFill),
    noteTextColor: hex(text),
    noteBorderColor: hex(line),
    actorBkg: hex(nodeFill),
    actorBorder: hex(border),
    actorTextColor: hex(text),
    actorLineColor: hex(line),
    signalColor: hex(line),
    signalTextColor: hex(text),
    labelBoxBkgColor: hex(nodeFill),
    labelBoxBorderColor: hex(border),
    labelTextColor: hex(text),
    loopTextColor: hex(text),
    activationBkgColor: hex(secondFill),
    activationBorderColor: hex(border),
    sequenceNumberColor: hex(background),
    labelColor: hex(text),
    altBackground: hex(quietFill),
    classText: hex(text),
    pieTitleTextColor: hex(heading),
    pieSectionTextColor: seriesText,
    pieLegendTextColor: hex(text),
    pieStrokeColor: hex(background),
    pieOuterStrokeColor: hex(line),
  };
  series.forEach((colour, i) => {
    variables[`pie${i + 1}`] = hex(colour);
    variables[`cScale${i}`] = hex(colour);
    variables[`cScaleLabel${i}`] = seriesText;
  });
  return variables;
}
