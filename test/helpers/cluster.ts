// The parts of a multi-replica deployment, as real processes on loopback and ephemeral ports:
// replicas (`node dist/server.js`, as the container runs it), redis-server, and HAProxy in front
// probing /ready and retrying. Every process started here is recorded, so a test (or the cluster
// benchmark) can kill whatever is left when it ends, passing or failing.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { projectRoot } from '../../src/paths.js';
import { freePort, temporaryDir } from './service.js';
import { cleanEnv } from './cli.js';

const started = new Set<ChildProcess>();

/** SIGKILLs every process started here that is still running. */
export function killAll(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  started.clear();
}

function launch(command: string, args: string[], env: Record<string, string> = {}): { child: ChildProcess; output: () => string } {
  const child = spawn(command, args, { env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'], cwd: projectRoot });
  started.add(child);
  child.on('exit', () => started.delete(child));
  let output = '';
  // Only the tail is kept: enough to explain a failure.
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => output };
}

/** Whether the process has ended. */
const ended = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

async function waitFor(what: string, condition: () => Promise<boolean>, timeoutMs: number, child?: ChildProcess, output?: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition().catch(() => false))) {
    if (child && ended(child)) throw new Error(`${what} exited before it was ready:\n${output?.()}`);
    if (Date.now() > deadline) throw new Error(`${what} not ready within ${timeoutMs / 1000} s:\n${output?.()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Compiles dist/ unless it is newer than every source file, so replicas run the code under test. */
export interface Replica {
  name: string;
  port: number;
  baseUrl: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited(): Promise<number | string>;
}

/** Starts `node dist/server.js` with `env` on an ephemeral port and waits until /ready answers 200. */
export async function startReplica(name: string, env: Record<string, string>, timeoutMs = 60_000): Promise<Replica> {
  const port = await freePort();
  const { child, output } = launch(process.execPath, [path.join(projectRoot, 'dist', 'server.js')], {
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_FORMAT: 'json',
    DATA_DIR: temporaryDir('cardwright-replica-'),
    ...env,
  });
  const exit = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | string);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor(`replica ${name}`, async () => (await fetch(`${baseUrl}/ready`)).status === 200, timeoutMs, child, output);
  return { name, port, baseUrl, child, output, exited: () => exit };
}

export interface TestRedis {
  port: number;
  url: string;
  start(): Promise<void>;
  /** Stops the server at once (SIGKILL): clients see their connections cut. */
  stop(): Promise<void>;
}

/** A throwaway redis-server on loopback that keeps nothing on disk. */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  let current: ChildProcess | undefined;
  const start = async () => {
    const { child, output } = launch('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
    current = child;
    await waitFor('redis-server', () => accepts(port), 10_000, child, output);
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    async stop() {
      const stopping = current;
      current = undefined;
      if (!stopping || ended(stopping)) return;
      const exit = once(stopping, 'exit');
      stopping.kill('SIGKILL');
      await exit;
    },
  };
}

export interface LoadBalancer {
  port: number;
  url: string;
  /** The backend's counters from HAProxy's stats socket: retries and redispatches so far. */
  stats(): Promise<{ retries: number; redispatches: number }>;
  stop(): Promise<void>;
}

/**
 * HAProxy in front of `replicas`: round robin, /ready probed every 250 ms (two failed probes take
 * a replica out, two good ones bring it back), and a request that met a refused or cut connection
 * or a 503 (a draining replica) retried on another replica. The response names the replica in
 * X-Served-By, so a test can tell which one answered.
 */
export async function startHaproxy(replicas: Array<Pick<Replica, 'name' | 'port'>>): Promise<LoadBalancer> {
  const port = await freePort();
  const dir = temporaryDir('cardwright-haproxy-');
  const socket = path.join(dir, 'stats.sock');
  const config = [
    'global',
    `  stats socket ${socket} level user`,
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout queue 30s',
    // A /ready that is slow on a busy machine (it probes the store) is not a replica that is down.
    '  timeout check 2s',
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure empty-response junk-response 503',
    '  option http-buffer-request',
    'frontend cards',
    `  bind 127.0.0.1:${port}`,
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    '  option httpchk GET /ready',
    '  http-check expect status 200',
    '  default-server inter 250ms fall 2 rise 2',
    '  http-response set-header X-Served-By %s',
    ...replicas.map((replica) => `  server ${replica.name} 127.0.0.1:${replica.port} check`),
    '',
  ].join('\n');
  const file = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(file, config);
  const { child, output } = launch('haproxy', ['-f', file, '-db']);
  await waitFor('haproxy', () => accepts(port), 10_000, child, output);
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (ended(child)) return;
      const exit = once(child, 'exit');
      child.kill('SIGKILL');
      await exit;
    },
    async stats() {
      const csv = await new Promise<string>((resolve, reject) => {
        const connection = net.connect(socket);
        let text = '';
        connection.on('data', (chunk) => (text += chunk));
        connection.on('end', () => resolve(text));
        connection.on('error', reject);
        connection.end('show stat\n');
      });
      const [header, ...rows] = csv.replace(/^# /, '').trim().split('\n');
      const columns = header!.split(',');
      const backend = rows.map((row) => row.split(',')).find((cells) => cells[0] === 'replicas' && cells[1] === 'BACKEND')!;
      const value = (name: string) => Number(backend[columns.indexOf(name)] || 0);
      return { retries: value('wretr'), redispatches: value('wredis') };
    },
  };
}
