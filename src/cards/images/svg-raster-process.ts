// The body of the short-lived process that draws one SVG as PNG (see svg-raster.ts): the SVG comes
// on standard input, the drawing options as the first argument, the PNG goes to standard output.
// A process of its own because librsvg cannot be interrupted once it draws: an SVG of stacked
// filters runs for minutes, and only killing its process gives the CPU back.
// The drawing host that started this drawing (svg-drawing-host-process.ts) holds its IPC channel:
// when the host dies (even by SIGKILL, which lets it kill nothing, as when the service dies and the
// host with it) the channel closes, and the drawing ends with it instead of holding a core for
// minutes (end-with-parent.ts). librsvg draws on a libuv thread, so this event loop still hears it.
import { endWithParent } from './end-with-parent.js';

endWithParent();
// The open channel would keep this process alive after the PNG is written.
process.channel?.unref();

// Loaded after the watch above is set: loading takes a while on a busy machine.
const { sharp } = await import('../../sharp.js');
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
