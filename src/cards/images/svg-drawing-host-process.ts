// The body of the drawing host (see svg-drawing-host.ts): a small process that starts, times and
// kills the processes that draw one SVG each (svg-raster-process.ts), so the service never forks
// itself for a drawing. Forking copies the parent's page tables, which takes time in proportion to
// its memory: 80–230 ms of the service's event loop per drawing at 0.5–1 GB, against some 10 ms
// of this process's own time here.
//
// Messages from the service: `draw` (an id, the SVG's bytes, the drawing options) and `cancel`
// (an id). Answers: `drawn` (the PNG's bytes) or `failed` (why). Kept to Node's own modules, so it
// starts and stays small.
//
// When the service dies, even by SIGKILL, its end of the IPC channel closes: the host kills its
// drawings and itself. The drawings watch the host the same way (svg-raster-process.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { yieldToRequests } from '../background-priority.js';
import { endWithParent } from './end-with-parent.js';
import type { DrawingOptions, HostAnswer, HostMessage } from './svg-drawing-host.js';

// From source (tsx) this module is .ts and so is the drawing's script; from dist/ both are .js.
const drawingScript = fileURLToPath(new URL(`./svg-raster-process${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url));

const drawings = new Map<number, ChildProcess>();

const answer = (message: HostAnswer) => {
  if (process.connected) process.send!(message);
};

function draw(id: number, svg: Uint8Array, options: DrawingOptions): void {
  // The same loader flags as this process (tsx when running from source). The IPC channel carries
  // nothing: its closing tells the drawing that this host died.
  const child = spawn(process.execPath, [...process.execArgv, drawingScript, JSON.stringify({ density: options.density, limitInputPixels: options.limitInputPixels })], {
    stdio: ['pipe', 'pipe', 'pipe', 'ipc'],
    timeout: options.timeoutMs,
    killSignal: 'SIGKILL',
  });
  drawings.set(id, child);
  // A drawing may take its full time limit of a core: /health and the requests' own work come first.
  if (child.pid) yieldToRequests(child.pid);
  // Piped, as stdio says (the IPC entry makes the typings lose track of that).
  const [stdin, stdout, stderr] = [child.stdin!, child.stdout!, child.stderr!];
  const output: Buffer[] = [];
  let errors = '';
  stdout.on('data', (chunk: Buffer) => output.push(chunk));
  stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
  stdin.on('error', () => {});
  let settled = false;
  const settle = (message: HostAnswer) => {
    if (settled) return;
    settled = true;
    drawings.delete(id);
    answer(message);
  };
  child.once('error', (error) => settle({ type: 'failed', id, message: error.message }));
  child.once('close', (code, signal) => {
    if (code === 0) return settle({ type: 'drawn', id, png: Buffer.concat(output) });
    const why = signal ? `it took longer than ${options.timeoutMs / 1000} s, the limit` : errors.trim().split('\n')[0] || `exit code ${code}`;
    settle({ type: 'failed', id, message: why });
  });
  stdin.end(svg);
}

process.on('message', (message: HostMessage) => {
  if (message.type === 'draw') draw(message.id, message.svg, message.options);
  else drawings.get(message.id)?.kill('SIGKILL');
});

// The drawings would end with this host anyway; killed first, they end at once.
endWithParent(() => {
  for (const child of drawings.values()) child.kill('SIGKILL');
});
