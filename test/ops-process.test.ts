// The service as an operator runs it: a separate `node dist/server.js` process, its JSON log lines
// on stdout, SIGHUP to re-read keys, SIGTERM to stop. Checks that keys never reach the log, that
// every request's log lines and error answers carry its id, and that stopping finishes the request
// in flight, exits 0 and leaves no Chromium process.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { describe, it } from 'node:test';
import { projectRoot } from '../src/paths.js';
import { buildIfStale } from './helpers/build.js';
import { metric } from './helpers/metrics.js';
import { eventually, processesInGroups } from './helpers/processes.js';
import { freePort, temporaryDir } from './helpers/service.js';

interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  dataDir: string;
  keyFile: string;
  /** Everything written to stdout so far. */
  stdout(): string;
  exited: Promise<number | null>;
}

const firstKey = 'first-secret-key-0123456789';
const slowMarkdown = '<div style="height:3000px;background:repeating-linear-gradient(45deg,#f00 0 3px,#00f 3px 7px);filter:blur(30px)"></div>';

/** Starts the service process and waits until /ready answers 200. */
async function startServer(env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await spawnServer(env);
  const up = await eventually(async () => {
    try {
      return (await fetch(`${server.baseUrl}/ready`)).status === 200;
    } catch {
      return false;
    }
  }, 120_000); // generous: a machine busy with other work can take long to start a browser and its pages
  if (!up) {
    server.child.kill('SIGKILL');
    throw new Error(`the server did not start:\n${server.stdout()}`);
  }
  return server;
}

/** Starts the service process without waiting for it. */
async function spawnServer(env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const dataDir = temporaryDir();
  const keyFile = path.join(dataDir, 'keys.txt');
  fs.writeFileSync(keyFile, `${firstKey}\n`);
  buildIfStale();
  const child = spawn(process.execPath, [path.join(projectRoot, 'dist', 'server.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      API_KEYS_FILE: keyFile,
      API_KEYS: '',
      RENDER_CONCURRENCY: '1',
      // One Markdown worker (the default is two): each loads the whole Markdown pipeline, and what
      // is tested here (keys, signals, draining, the browser's end) does not depend on their number.
      MARKDOWN_THREADS: '1',
      LOG_LEVEL: 'debug',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  return { child, baseUrl, dataDir, keyFile, stdout: () => out, exited };
}

/** GET /ready on a connection of its own (fetch would reuse an open one), as a load balancer's probe. */
function readyOnNewConnection(baseUrl: string): Promise<{ status: number; body: Record<string, string> } | { error: string }> {
  return new Promise((resolve) => {
    const request = http.get(`${baseUrl}/ready`, { agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
    });
    request.on('error', (error) => resolve({ error: error.message }));
  });
}

function generate(server: ServerProcess, body: unknown, key: string) {
  return fetch(`${server.baseUrl}/api/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
}

const logLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const browserPids = (text: string) =>
  logLines(text)
    .filter((line) => line.msg === 'browser launched')
    .map((line) => line.browserPid as number);

describe('the service process', () => {
  it('logs JSON lines with request ids, never an API key, and re-reads keys on SIGHUP', async () => {
    const server = await startServer();
    const secondKey = 'second-secret-key-0123456789';
    const wrongKey = 'wrong-secret-key-0123456789';
    try {
      const ok = await generate(server, { markdown: '# logged', scale: 1 }, firstKey);
      assert.equal(ok.status, 200);
      const denied = await generate(server, {}, wrongKey);
      assert.equal(denied.status, 401);
      const deniedBody = (await denied.json()) as { requestId: string };
      assert.equal(deniedBody.requestId, denied.headers.get('x-request-id'));
      const invalid = await generate(server, { width: 'wide' }, firstKey);
      assert.equal(invalid.status, 400);

      fs.writeFileSync(server.keyFile, `${secondKey}\n`);
      server.child.kill('SIGHUP');
      assert.ok(await eventually(async () => (await generate(server, { width: 'wide' }, secondKey)).status === 400, 5_000));
      assert.equal((await generate(server, { width: 'wide' }, firstKey)).status, 401);
    } finally {
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
    }

    const text = server.stdout();
    for (const secret of [firstKey, secondKey, wrongKey]) assert.ok(!text.includes(secret), 'no key appears in the log');
    const lines = logLines(text); // throws if a line is not JSON
    const requestLines = lines.filter((line) => line.req || line.res || line.responseTime !== undefined);
    assert.ok(requestLines.length >= 10);
    for (const line of requestLines) assert.equal(typeof line.reqId, 'string', JSON.stringify(line));
    const deniedId = (lines.find((line) => (line.res as any)?.statusCode === 401)?.reqId ?? '') as string;
    assert.ok(deniedId.length > 0, 'the 401 is in the log under its request id');
    assert.ok(lines.some((line) => line.msg === 'API keys reloaded'));
  });

  it('on SIGTERM says "draining" on /ready and refuses new work while it finishes the request in flight, exits 0 and leaves no Chromium process', async () => {
    // Generous limits: on a machine busy with other work the slow card may take a while to draw.
    const server = await startServer({ CARD_RENDER_TIMEOUT_MS: '120000', REQUEST_TIMEOUT_MS: '180000', SHUTDOWN_GRACE_MS: '180000' });
    const [browserPid] = browserPids(server.stdout());
    assert.ok(browserPid, 'the log names the browser pid');
    const inFlight = generate(server, { markdown: slowMarkdown, width: 2000 }, firstKey);
    assert.ok(await eventually(async () => (await metric(server.baseUrl, 'cardwright_active_renders')) === 1, 30_000), 'the render started');
    server.child.kill('SIGTERM');
    // Load balancers probe /ready on connections of their own: while the render finishes, it says why this replica is out.
    // Once the service has begun to stop (a connection made before that proves nothing).
    assert.ok(await eventually(() => server.stdout().includes('shutting down'), 10_000), 'the service logged that it stops');
    const ready = await readyOnNewConnection(server.baseUrl);
    assert.ok('status' in ready, `/ready did not answer while the service drained: ${JSON.stringify(ready)}`);
    assert.equal(ready.status, 503);
    assert.equal(ready.body.status, 'not_ready');
    assert.match(ready.body.draining ?? '', /shutting down/);
    const refused = await generate(server, { markdown: '# Late' }, firstKey);
    assert.equal(refused.status, 503, 'new work is refused while draining');
    assert.equal(((await refused.json()) as { error: string }).error, 'overloaded');
    const response = await inFlight;
    const answer = (await response.json()) as { images: Array<{ fileName: string }> };
    assert.equal(response.status, 200, JSON.stringify(answer));
    const { images } = answer;
    assert.ok(fs.existsSync(path.join(server.dataDir, images[0]!.fileName)), 'the finished image is stored');
    assert.equal(await server.exited, 0);
    // Every browser it launched: the requests' and the previews' own.
    assert.deepEqual(processesInGroups(browserPids(server.stdout())), []);
    assert.ok(logLines(server.stdout()).some((line) => line.msg === 'stopped cleanly'));
  });

  it('on SIGTERM while the browser is still starting, exits 0 and leaves no Chromium process', async () => {
    const server = await spawnServer();
    assert.ok(await eventually(() => browserPids(server.stdout()).length > 0, 120_000), `the browser was launched:\n${server.stdout()}`);
    // The render pages are still opening and warming up: the service is not ready yet.
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.stdout());
    assert.deepEqual(processesInGroups(browserPids(server.stdout())), []);
  });

  it('past SHUTDOWN_GRACE_MS closes the browser anyway and exits 1', async () => {
    const server = await startServer({ SHUTDOWN_GRACE_MS: '100' });
    const inFlight = generate(server, { markdown: slowMarkdown, width: 2000 }, firstKey).then(
      (response) => response.status,
      () => 'connection closed',
    );
    assert.ok(await eventually(async () => (await metric(server.baseUrl, 'cardwright_active_renders')) === 1, 30_000));
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 1);
    assert.notEqual(await inFlight, 200);
    assert.deepEqual(processesInGroups(browserPids(server.stdout())), []);
  });
});
