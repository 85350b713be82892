// The body of the short-lived process that draws one SVG as PNG (see svg-raster.ts): the SVG comes
// on standard input, the drawing options as the first argument, the PNG goes to standard output.
// A process of its own because librsvg cannot be interrupted once it draws: an SVG of stacked
// filters runs for minutes, and only killing its process gives the CPU back.
import sharp from 'sharp';

const { density, limitInputPixels } = JSON.parse(process.argv[2] ?? '{}') as { density: number; limitInputPixels: number };
const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
try {
  const png = await sharp(Buffer.concat(chunks), { density, limitInputPixels }).png().toBuffer();
  process.stdout.write(png);
} catch (error) {
  process.stderr.write((error as Error).message);
  process.exitCode = 1;
}
