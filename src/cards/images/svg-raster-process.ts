// The body of the short-lived process that draws one SVG as PNG (see svg-raster.ts): the SVG comes
// on standard input, the drawing options as the first argument, the PNG goes to standard output.
// A process of its own because librsvg cannot be interrupted once it draws: an SVG of stacked
// filters runs for minutes, and only killing its process gives the CPU back.
// The drawing host that started this drawing (svg-drawing-host-process.ts) holds its IPC channel:
// when the host dies (even by SIGKILL, which lets it kill nothing, as when the service dies and the
// host with it) the channel closes, and the drawing ends with it instead of holding a core for
// minutes. librsvg draws on a libuv thread, so this event loop still hears it.
// A host that died while this process was still loading closed the channel before anyone
// listened (process.connected tells), and a parent that is gone leaves this process to another
// (its ppid changes): either ends the drawing too.
// Killed rather than exited: process.exit waits at libvips' shutdown for the drawing under way.
const endWithParent = () => process.kill(process.pid, 'SIGKILL');
process.once('disconnect', endWithParent);
if (!process.connected) endWithParent();
const parent = process.ppid;
setInterval(() => process.ppid !== parent && endWithParent(), 250).unref();
// The open channel would keep this process alive after the PNG is written.
process.channel?.unref();

// Loaded after the watch above is set: loading takes a while on a busy machine.
const { default: sharp } = await import('sharp');
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
