// Starts the built service as a user would (`node dist/server.js`, or `npm start`) on loopback for
// a benchmark, and stops it. Run `npm run build` before; the npm bench scripts do. `node
// dist/server.js` gets the environment variables that the build's `npm start` script sets before
// it (the allocator's settings), as the Docker image sets them too.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../test/helpers/service.js';
import { treeCpuSeconds } from './memory.js';

export const benchApiKey = 'bench-key-0123456789abcdef';

export interface ServiceProcess {
  baseUrl: string;
  pid: number;
  /** From spawning the process to /health answering (the browser is warm by then). */
  startToReadyMs: number;
  /** CPU seconds used until ready by the service (all its threads) and by its descendants (Chromium); see treeCpuSeconds. */
  cpuAtReady: { service: number; descendants: number };
  generate(body: unknown): Promise<Response>;
  /** POST /api/preview, as the web page's live editor sends it. */
  preview(body: unknown): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * `how`: `node dist/server.js` (production) or `npm start` (which first checks that dist/ is up to
 * date). `cwd`: the checkout whose build to start (another commit's, to compare builds), this one by default.
 * BENCH_NODE_FLAGS (space-separated) are given to node before the entry point, e.g. `--trace-gc`.
 */
export async function startServiceProcess(env: Record<string, string> = {}, how: 'node' | 'npm start' = 'node', cwd?: string): Promise<ServiceProcess> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cardwright-bench-'));
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const [command, args] = how === 'node' ? [process.execPath, [...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), 'dist/server.js']] : ['npm', ['start', '--silent']];
  const startEnv = how === 'node' ? startScriptEnvironment(cwd ?? process.cwd()) : {};
  const child: ChildProcess = spawn(command, args, {
    cwd,
    env: { ...process.env, ...startEnv, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, API_KEYS: benchApiKey, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', how === 'node' ? 'inherit' : 'ignore', 'inherit'],
    // npm runs the service as a child of its own: the whole group is stopped.
    detached: how !== 'node',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (how === 'node') child.kill('SIGTERM');
    else process.kill(-child.pid!, 'SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };

  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with code ${child.exitCode} before it was ready`);
    try {
      if ((await fetch(`${baseUrl}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (performance.now() - started > 120_000) {
      await stop();
      throw new Error('the service was not ready within 120 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const startToReadyMs = performance.now() - started;
  // With `npm start` the service is npm's child: the tree then counts npm and the build check too.
  const cpuAtReady = treeCpuSeconds(child.pid!);

  return {
    baseUrl,
    pid: child.pid!,
    startToReadyMs,
    cpuAtReady,
    generate: (body) => post(`${baseUrl}/api/generate`, body),
    preview: (body) => post(`${baseUrl}/api/preview`, body),
    stop,
  };
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': benchApiKey }, body: JSON.stringify(body) });

/** The `NAME=value` assignments before the command of the `start` script in `dir`'s package.json. */
function startScriptEnvironment(dir: string): Record<string, string> {
  const start = (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const assignments = /^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*/.exec(start)![0];
  return Object.fromEntries([...assignments.matchAll(/([A-Z_][A-Z0-9_]*)=(\S*)/g)].map((match) => [match[1]!, match[2]!]));
}

