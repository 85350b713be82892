// The contact sheet of the gallery and corpus scripts: tiles laid out in rows of `columns`, each row
// as tall as its tallest tile, `gap` px around every tile.
import sharp, { type OverlayOptions, type Sharp } from 'sharp';

export interface SheetTile {
  png: Buffer;
  height: number;
}

export function contactSheet(tiles: SheetTile[], layout: { tileWidth: number; columns: number; gap: number; background: string }): Sharp {
  const { tileWidth, columns, gap, background } = layout;
  const placements: OverlayOptions[] = [];
  let top = gap;
  for (let start = 0; start < tiles.length; start += columns) {
    const row = tiles.slice(start, start + columns);
    row.forEach((tile, index) => {
      placements.push({ input: tile.png, left: gap + index * (tileWidth + gap), top });
    });
    top += Math.max(...row.map((tile) => tile.height)) + gap;
  }
  const width = gap + Math.min(columns, tiles.length) * (tileWidth + gap);
  return sharp({ create: { width, height: top, channels: 3, background } }).composite(placements);
}
