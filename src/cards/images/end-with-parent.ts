// For the processes the service starts to draw SVGs (svg-drawing-host-process.ts and
// svg-raster-process.ts): end, by SIGKILL, as soon as the process that started this one is gone.
// Its end of the IPC channel closes when it dies, even by SIGKILL; a parent that died while this
// process was still loading closed it before anyone listened (process.connected tells), and a
// parent that is gone leaves this process to another (its ppid changes). Killed rather than
// exited: process.exit waits at libvips' shutdown for a drawing under way.
export function endWithParent(first?: () => void): void {
  const end = () => {
    first?.();
    process.kill(process.pid, 'SIGKILL');
  };
  process.once('disconnect', end);
  if (!process.connected) end();
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && end(), 250).unref();
}
