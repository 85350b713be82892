// `npm run gallery`: renders docs/gallery-sample.md in every theme and mode through the real
// renderer (the same Chromium pages, fonts and card markup as the API) and composes a contact
// sheet, docs/gallery.jpg, so a user sees every look at a glance.
//
//   npm run gallery                       all built-in themes (and THEMES_DIR's, if set)
//   npm run gallery -- --tiles out/       also keep every card as out/<theme>[.<mode>].png
//   npm run gallery -- --scale 2 --out docs/gallery.png
//   npm run gallery -- --only pop-art,warm --tiles out/   just these themes
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import sharp from 'sharp';
import { contactSheet } from './lib/contact-sheet.js';
import { createCards, normalizeRequest } from '../src/cards/index.js';
import { defaultThemeId } from '../src/cards/themes/registry.js';
import { loadCommandConfig } from '../src/config.js';
import { projectRoot } from '../src/paths.js';

const { values: args } = parseArgs({
  options: {
    out: { type: 'string', default: path.join(projectRoot, 'docs', 'gallery.jpg') },
    tiles: { type: 'string' },
    scale: { type: 'string', default: '1' },
    columns: { type: 'string', default: '6' },
    width: { type: 'string', default: '440' },
    only: { type: 'string' },
  },
});
const scale = Number(args.scale);
const columns = Number(args.columns);
const cardWidth = Number(args.width);
const gap = 28 * scale;
const labelHeight = 34 * scale;
const sheetBackground = '#e8eaee';

interface Tile {
  label: string;
  fileStem: string;
  png: Buffer;
  width: number;
  height: number;
}

const escapeXml = (text: string) => text.replace(/[<>&]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c]!);

/** One gallery entry: the theme and mode above the card. */
async function labelled(card: Buffer, label: string): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(card).metadata();
  const text = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${labelHeight}"><text x="0" y="${24 * scale}" font-family="monospace" font-weight="700" font-size="${15 * scale}" fill="#22262e">${escapeXml(label)}</text></svg>`;
  return sharp({ create: { width, height: height + labelHeight, channels: 3, background: sheetBackground } })
    .composite([{ input: Buffer.from(text), top: 0, left: 0 }, { input: card, top: labelHeight, left: 0 }])
    .png()
    .toBuffer();
}

/** Every theme and mode through the card pipeline, exactly as the API renders them. */
async function renderTiles(): Promise<Tile[]> {
  const cards = createCards({ settings: { ...loadCommandConfig(), renderConcurrency: 1, renderCache: undefined }, log: pino({ level: 'warn' }) });
  const sample = fs.readFileSync(path.join(projectRoot, 'docs', 'gallery-sample.md'), 'utf8');
  try {
    const tiles: Tile[] = [];
    const only = args.only?.split(',');
    // The default theme first, then the others in the registry's order.
    const ordered = [...cards.themes.themes].sort((a, b) => Number(b.id === defaultThemeId) - Number(a.id === defaultThemeId));
    for (const theme of ordered.filter((candidate) => !only || only.includes(candidate.id))) {
      for (const mode of theme.modes.length > 0 ? theme.modes : [undefined]) {
        const request = normalizeRequest({ markdown: sample, theme: theme.id, themeMode: mode, width: cardWidth, scale, format: 'png' });
        const { images } = await cards.render(request, AbortSignal.timeout(60_000));
        const png = await labelled(images[0]!.data, mode ? `${theme.id} · ${mode}` : theme.id);
        const { width, height } = await sharp(png).metadata();
        tiles.push({ label: `${theme.id} ${mode ?? ''}`.trim(), fileStem: mode ? `${theme.id}.${mode}` : theme.id, png, width: width!, height: height! });
      }
    }
    return tiles;
  } finally {
    await cards.close();
  }
}

const started = Date.now();
const tiles = await renderTiles();
if (args.tiles) {
  fs.mkdirSync(args.tiles, { recursive: true });
  for (const tile of tiles) fs.writeFileSync(path.join(args.tiles, `${tile.fileStem}.png`), tile.png);
}
const sheet = contactSheet(tiles, { tileWidth: Math.max(...tiles.map((tile) => tile.width)), columns, gap, background: sheetBackground });
fs.mkdirSync(path.dirname(args.out), { recursive: true });
const info = await (args.out.endsWith('.png') ? sheet.png() : sheet.jpeg({ quality: 86, mozjpeg: true })).toFile(args.out);
console.log(
  `${tiles.length} cards (${tiles.map((tile) => tile.label).join(', ')})\n` +
    `→ ${path.relative(process.cwd(), args.out)} ${info.width}×${info.height}, ${(info.size / 1024).toFixed(0)} KiB, ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
