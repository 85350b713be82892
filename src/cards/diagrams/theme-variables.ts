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
  /**
   * The theme's colours beyond its text, in the order they are preferred: the heading's colour and
   * rule, the link, the quote's rule, bold text. Some may repeat the text colour; those are skipped.
   */
  accents: Rgba[];
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

function lightness([r, g, b]: Rgba): number {
  return (Math.max(r, g, b) + Math.min(r, g, b)) / 2 / 255;
}

const hueDistance = (a: number, b: number) => Math.min(Math.abs(a - b), 360 - Math.abs(a - b));

/**
 * The theme's accent colours that a diagram may use: those with a colour of their own (not a grey)
 * that stand out from the background, one per hue, in the theme's order. Empty for a theme in
 * black and white.
 */
function accentsOf(palette: ThemePalette): Rgba[] {
  const accents: Rgba[] = [];
  for (const colour of palette.accents) {
    if (saturation(colour) < 0.25 || contrast(colour, palette.background) < 1.8) continue;
    if (accents.some((known) => hueDistance(hue(known), hue(colour)) < 25)) continue;
    accents.push(colour);
  }
  return accents;
}

/** The colour of text on `fill`: the theme's text or its background, whichever stands out more. */
const labelOn = (fill: Rgba, palette: ThemePalette) => (contrast(fill, palette.text) >= contrast(fill, palette.background) ? palette.text : palette.background);

/**
 * Slice and section colours (pie, mindmap, timeline, journey, git): the theme's accents first,
 * then hues turned around the wheel from the first. On a dark ground they are as bright as the
 * accents themselves (a neon theme keeps its neon); on a light one, pastels of them under dark text.
 */
function seriesColours(accents: Rgba[], background: Rgba, count: number): Rgba[] {
  const dark = luminance(background) < 0.3;
  const first = accents[0];
  const saturationOf = first ? Math.max(0.5, Math.min(0.9, saturation(first))) : 0.45;
  const hues = accents.map(hue);
  while (hues.length < count) hues.push(((first ? hue(first) : 210) + hues.length * 137.5) % 360);
  return hues.slice(0, count).map((h, i) => {
    if (!dark) return fromHsl(h, Math.min(saturationOf, 0.75), 0.8);
    if (accents[i]) return accents[i]!;
    // As light as the hue needs to stand out from the ground under a dark label (a blue more than a yellow).
    let l = first ? Math.max(0.45, Math.min(0.65, lightness(first))) : 0.55;
    while (l < 0.85 && contrast(fromHsl(h, saturationOf, l), background) < 4.5) l += 0.05;
    return fromHsl(h, saturationOf, l);
  });
}

export function mermaidThemeVariables(palette: ThemePalette): Record<string, unknown> {
  const { background, text, heading } = palette;
  const dark = luminance(background) < 0.3;
  const accents = accentsOf(palette);
  // A theme in black and white draws in greys.
  const first = accents[0] ?? mix(background, text, 0.6);
  const second = accents[1] ?? first;
  const third = accents[2] ?? second;
  const tint = (colour: Rgba, amount: number) => hex(mix(background, colour, amount));
  const nodeFill = tint(first, dark ? 0.2 : 0.12);
  const secondFill = tint(second, dark ? 0.2 : 0.12);
  const thirdFill = tint(third, dark ? 0.18 : 0.1);
  const quietFill = tint(text, dark ? 0.07 : 0.04);
  const line = tint(text, 0.75);
  const faintLine = tint(text, 0.25);
  // On a dark ground the rim of a box is the accent itself, as a neon sign's tube.
  const border = dark ? hex(first) : tint(first, 0.85);
  const secondBorder = dark ? hex(second) : tint(second, 0.85);
  const textColour = hex(text);
  // Titles in the heading's colour, unless the theme draws its headings on a ground of their own
  // (brand-a's white title on a gradient pill): on the card's ground that colour may not show.
  const titleColour = contrast(heading, background) >= 3 ? hex(heading) : textColour;
  const series = seriesColours(accents, background, 12);
  // Mermaid draws a timeline's axis in the last section's label colour: that section gets a fill
  // under the theme's own text, so the axis is drawn in the text colour too.
  series[11] = dark ? mix(background, series[11]!, 0.4) : series[11]!;
  const labels = series.map((colour) => hex(labelOn(colour, palette)));
  // A warm accent marks critical tasks; without one, a red of the accents' strength.
  const warm = accents.find((colour) => hueDistance(hue(colour), 0) <= 35) ?? fromHsl(355, 0.75, dark ? 0.6 : 0.5);
  const variables: Record<string, unknown> = {
    darkMode: dark,
    background: hex(background),
    fontFamily: palette.fontFamily,
    fontSize: `${palette.fontSizePx}px`,
    primaryColor: nodeFill,
    primaryTextColor: textColour,
    primaryBorderColor: border,
    secondaryColor: secondFill,
    secondaryTextColor: textColour,
    secondaryBorderColor: secondBorder,
    tertiaryColor: quietFill,
    tertiaryTextColor: textColour,
    tertiaryBorderColor: line,
    lineColor: line,
    arrowheadColor: line,
    textColor: textColour,
    titleColor: titleColour,
    mainBkg: nodeFill,
    nodeBorder: border,
    nodeTextColor: textColour,
    clusterBkg: quietFill,
    clusterBorder: line,
    edgeLabelBackground: hex(background),
    noteBkgColor: thirdFill,
    noteTextColor: textColour,
    noteBorderColor: dark ? hex(third) : tint(third, 0.85),
    // Sequence diagrams.
    actorBkg: nodeFill,
    actorBorder: border,
    actorTextColor: textColour,
    actorLineColor: line,
    signalColor: line,
    signalTextColor: textColour,
    labelBoxBkgColor: nodeFill,
    labelBoxBorderColor: border,
    labelTextColor: textColour,
    loopTextColor: textColour,
    activationBkgColor: secondFill,
    activationBorderColor: secondBorder,
    sequenceNumberColor: hex(background),
    // State and class diagrams.
    labelColor: textColour,
    altBackground: quietFill,
    classText: textColour,
    // Entity-relationship diagrams: attribute rows alternate between two quiet fills.
    attributeBackgroundColorOdd: tint(text, dark ? 0.04 : 0.02),
    attributeBackgroundColorEven: tint(text, dark ? 0.1 : 0.06),
    rowOdd: tint(text, dark ? 0.04 : 0.02),
    rowEven: tint(text, dark ? 0.1 : 0.06),
    // Gantt charts: tasks in the first accent, active ones in the second, done ones in grey,
    // critical ones warm; section bands (drawn at 20 % opacity) in the accents.
    taskBkgColor: tint(first, dark ? 0.35 : 0.25),
    taskBorderColor: border,
    taskTextColor: textColour,
    taskTextLightColor: textColour,
    taskTextDarkColor: textColour,
    taskTextOutsideColor: textColour,
    taskTextClickableColor: textColour,
    activeTaskBkgColor: tint(second, dark ? 0.35 : 0.25),
    activeTaskBorderColor: secondBorder,
    doneTaskBkgColor: tint(text, dark ? 0.2 : 0.15),
    doneTaskBorderColor: tint(text, 0.45),
    critBkgColor: tint(warm, dark ? 0.4 : 0.3),
    critBorderColor: hex(warm),
    sectionBkgColor: hex(first),
    sectionBkgColor2: hex(second),
    altSectionBkgColor: hex(background),
    excludeBkgColor: quietFill,
    gridColor: faintLine,
    todayLineColor: hex(warm),
    vertLineColor: hex(second),
    // Pie charts.
    pieTitleTextColor: titleColour,
    pieSectionTextColor: labels[0]!,
    pieLegendTextColor: textColour,
    pieStrokeColor: hex(background),
    pieOuterStrokeColor: line,
    pieOpacity: '1',
    // Packet diagrams: Mermaid's own colours are black, whatever the ground.
    packet: { startByteColor: textColour, endByteColor: textColour, labelColor: textColour, titleColor: titleColour, blockStrokeColor: line, blockFillColor: nodeFill },
    // Charts with a palette of their own.
    xyChart: { plotColorPalette: series.map(hex).join(','), backgroundColor: 'transparent' },
    quadrant1Fill: nodeFill,
    quadrant2Fill: secondFill,
    quadrant3Fill: thirdFill,
    quadrant4Fill: quietFill,
  };
  series.forEach((colour, i) => {
    variables[`pie${i + 1}`] = hex(colour);
    variables[`cScale${i}`] = hex(colour);
    variables[`cScaleLabel${i}`] = labels[i]!;
    // The lines from a timeline's period to its events: the section's colour, deeper on a light ground.
    variables[`cScaleInv${i}`] = hex(dark ? colour : mix(colour, text, 0.35));
    variables[`cScalePeer${i}`] = hex(mix(colour, text, 0.25));
    variables[`git${i}`] = hex(colour);
    variables[`gitBranchLabel${i}`] = labels[i]!;
    variables[`fillType${i}`] = hex(colour);
  });
  return variables;
}

/**
 * CSS for what Mermaid's own stylesheet draws wrong with these variables. A user journey's section
 * names are SVG text here (no HTML labels), and carry their section's class, whose fill is the
 * section's colour: each name vanished into its own box. Its task names are drawn in the text
 * colour over boxes of the section's colour: white on cyan in a dark theme. Both take the label
 * colour drawn on that colour instead, as a timeline's and a git graph's labels do.
 */
export function mermaidThemeCss(themeVariables: Record<string, unknown>): string {
  const sections = Object.keys(themeVariables).filter((name) => /^fillType\d+$/.test(name)).length;
  return Array.from({ length: sections }, (_, i) => {
    const label = String(themeVariables[`cScaleLabel${i}`]);
    return `text.journey-section.section-type-${i}, g:has(> rect.task-type-${i}) text.task { fill: ${label} !important; }`;
  })
    .concat(c4LinesCss(String(themeVariables.textColor), String(themeVariables.lineColor)), arrowsCss(String(themeVariables.lineColor)))
    .join('\n');
}

/**
 * C4 and journey diagrams draw their arrowheads (markers whose id ends in -arrowhead, -arrowend,
 * -crosshead or -filled-head) in the default black, and a journey its time axis as a black line,
 * which a dark theme's ground swallows: both take the line colour, as a sequence diagram's
 * arrowheads (the same ids) already do from Mermaid's own styles.
 */
function arrowsCss(line: string): string {
  const markers = ['-arrowhead', '-arrowend', '-crosshead', '-filled-head'].map((end) => `marker[id$="${end}"] path`).join(', ');
  return [`:is(${markers}):not([fill="none"]) { fill: ${line} !important; }`, `:is(${markers}) { stroke: ${line} !important; }`, `line[stroke="black"][marker-end] { stroke: ${line} !important; }`].join('\n');
}

/**
 * A C4 diagram draws its relationships, their labels, its boundaries and their names in a fixed
 * #444444, which a dark theme's ground swallows (1.9:1 on cyberpunk's): they take the theme's text
 * and line colours. Mermaid writes that colour as an attribute, and only in C4 diagrams.
 */
function c4LinesCss(text: string, line: string): string {
  return [`:is(text, tspan)[fill="#444444"] { fill: ${text} !important; }`, `:is(line, path, rect)[stroke="#444444"] { stroke: ${line} !important; }`].join('\n');
}


/** Mermaid's kinds of C4 element with colours of their own (`<kind>_bg_color`), darkest first, each with its `_db` and `_queue` forms. */
const c4Levels = ['person', 'system', 'container', 'component'] as const;
const white: Rgba = [255, 255, 255, 1];
const black: Rgba = [0, 0, 0, 1];

/** `colour` darkened just enough for white text on it to reach 4.5:1. */
function underWhiteText(colour: Rgba): Rgba {
  let shade = colour;
  for (let amount = 0.05; contrast(shade, white) < 4.5 && amount <= 1; amount += 0.05) shade = mix(colour, black, amount);
  return shade;
}

/**
 * A C4 diagram's element colours (Mermaid's `c4` settings) from the theme. Mermaid writes every
 * element's name and description in white, on fixed blues and greys of which half are too light
 * for it (a component's #85BBF0 is 2.1:1, an external component's #CCCCCC 1.6:1), in every theme.
 * Internal elements take the theme's first accent, external ones a grey of its text, each darkened
 * until white reads on it, people darkest and components lightest as in C4's own key.
 */
export function mermaidC4Colours(palette: ThemePalette): Record<string, string> {
  // A theme in black and white: internal elements near its text colour, external ones a lighter grey.
  const accent = accentsOf(palette)[0] ?? mix(palette.background, palette.text, 0.85);
  const grey = mix(palette.background, palette.text, 0.55);
  const greyLevel = (grey[0] + grey[1] + grey[2]) / 3;
  const lightest = { '': underWhiteText(accent), external_: underWhiteText([greyLevel, greyLevel, greyLevel, 1]) };
  const colours: Record<string, string> = {};
  for (const [depth, level] of c4Levels.entries()) {
    for (const [prefix, shade] of Object.entries(lightest)) {
      const fill = mix(shade, black, 0.15 * (c4Levels.length - 1 - depth));
      for (const form of ['', '_db', '_queue']) {
        colours[`${prefix}${level}${form}_bg_color`] = hex(fill);
        colours[`${prefix}${level}${form}_border_color`] = hex(mix(fill, black, 0.2));
      }
    }
  }
  return colours;
}
