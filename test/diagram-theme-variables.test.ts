// The colours a card theme gives Mermaid (src/cards/diagrams/theme-variables.ts), checked on the
// variables themselves for palettes shaped like the themes where diagrams' text went missing: no
// browser. That each variable reaches the drawing is test/diagrams.test.ts's (every type drawn in a
// dark and a light theme).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mermaidC4Colours, mermaidThemeCss, mermaidThemeVariables, type Rgba, type ThemePalette } from '../src/cards/diagrams/theme-variables.js';
import { contrastRatio } from './helpers/contrast.js';

const rgb = (value: unknown): [number, number, number] => {
  const hex = String(value);
  assert.match(hex, /^#[0-9a-f]{6}$/, `${hex} is a colour`);
  return [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16)) as [number, number, number];
};
const ground = (palette: ThemePalette) => palette.background.slice(0, 3) as [number, number, number];
const palette = (background: Rgba, text: Rgba, heading: Rgba, accents: Rgba[]): ThemePalette => ({ background, text, heading, accents, fontFamily: 'sans-serif', fontSizePx: 16 });

/** brand-a: white headings on a gradient pill of their own, on a white card. */
const whiteHeadingOnPill = palette([255, 255, 255, 1], [30, 41, 59, 1], [255, 255, 255, 1], [[255, 255, 255, 1], [37, 99, 235, 1], [124, 58, 237, 1]]);
/** cyberpunk: light text and neon accents on a night-blue card. */
const neonOnNight = palette([18, 16, 38, 1], [224, 224, 255, 1], [0, 255, 255, 1], [[0, 255, 255, 1], [255, 0, 153, 1], [255, 230, 0, 1]]);
/** A heading colour that stands out on its own. */
const redHeadingOnPaper = palette([250, 247, 240, 1], [40, 40, 40, 1], [180, 30, 40, 1], [[180, 30, 40, 1], [30, 90, 160, 1]]);
/** minimal: black and white, no accent. */
const blackOnWhite = palette([245, 245, 242, 1], [34, 34, 34, 1], [17, 17, 17, 1], [[17, 17, 17, 1]]);

describe("Mermaid's colours from a card theme", () => {
  it('draws titles (gantt, pie, subgraph, packet) in a colour that shows on the card, also when the headings are white on a pill of their own', () => {
    for (const [name, theme] of Object.entries({ whiteHeadingOnPill, neonOnNight, redHeadingOnPaper })) {
      const variables = mermaidThemeVariables(theme);
      for (const key of ['titleColor', 'pieTitleTextColor']) {
        const ratio = contrastRatio(rgb(variables[key]), ground(theme));
        assert.ok(ratio >= 3, `${name}: ${key} ${String(variables[key])} at ${ratio.toFixed(2)}:1 on the card`);
      }
    }
    // A heading colour that shows is kept.
    assert.equal(mermaidThemeVariables(redHeadingOnPaper).titleColor, '#b41e28');
  });

  it("draws a packet diagram's byte numbers, title and field names in the theme's text colours, not Mermaid's black", () => {
    for (const [name, theme] of Object.entries({ whiteHeadingOnPill, neonOnNight, redHeadingOnPaper })) {
      const { packet } = mermaidThemeVariables(theme) as { packet: Record<string, string> };
      for (const key of ['startByteColor', 'endByteColor', 'titleColor']) {
        const ratio = contrastRatio(rgb(packet[key]), ground(theme));
        assert.ok(ratio >= 3, `${name}: packet ${key} at ${ratio.toFixed(2)}:1 on the card`);
      }
      const label = contrastRatio(rgb(packet.labelColor), rgb(packet.blockFillColor));
      assert.ok(label >= 4.5, `${name}: a field's name at ${label.toFixed(2)}:1 on its block`);
    }
  });

  it("gives each journey section's and task's name the label colour of its section's fill", () => {
    const variables = mermaidThemeVariables(neonOnNight);
    const css = mermaidThemeCss(variables);
    for (let i = 0; i < 7; i++) {
      const rule = new RegExp(`text\\.journey-section\\.section-type-${i}, g:has\\(> rect\\.task-type-${i}\\) text\\.task \\{ fill: (#[0-9a-f]{6}) !important; \\}`).exec(css);
      assert.ok(rule, `section ${i} has its rule`);
      const ratio = contrastRatio(rgb(rule[1]), rgb(variables[`fillType${i}`]));
      assert.ok(ratio >= 4.5, `section ${i}: its names at ${ratio.toFixed(2)}:1 on its fill`);
    }
  });

  it("gives a C4 diagram's elements fills that its white names read on, internal ones apart from external ones, and its lines and labels the theme's colours", () => {
    const white: [number, number, number] = [255, 255, 255];
    for (const [name, theme] of Object.entries({ whiteHeadingOnPill, neonOnNight, redHeadingOnPaper, blackOnWhite })) {
      const colours = mermaidC4Colours(theme);
      for (const kind of ['person', 'system', 'system_db', 'system_queue', 'container', 'container_db', 'container_queue', 'component', 'component_db', 'component_queue']) {
        for (const prefix of ['', 'external_']) {
          const ratio = contrastRatio(white, rgb(colours[`${prefix}${kind}_bg_color`]));
          assert.ok(ratio >= 4.5, `${name}: white on ${prefix}${kind} at ${ratio.toFixed(2)}:1`);
        }
        assert.notEqual(colours[`${kind}_bg_color`], colours[`external_${kind}_bg_color`], `${name}: ${kind} inside and outside differ`);
      }
      const variables = mermaidThemeVariables(theme);
      const css = mermaidThemeCss(variables);
      assert.ok(css.includes(`:is(text, tspan)[fill="#444444"] { fill: ${String(variables.textColor)} !important; }`), `${name}: relationship labels in the text colour`);
      assert.ok(css.includes(`:is(line, path, rect)[stroke="#444444"] { stroke: ${String(variables.lineColor)} !important; }`), `${name}: relationships and boundaries in the line colour`);
    }
  });
});
