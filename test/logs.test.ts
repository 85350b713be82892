// The service's log as `npm start` and `cardwright serve` write it: readable lines (pino-pretty) on
// a terminal, JSON lines when the output goes to a file or a collector, and LOG_FORMAT forcing
// either. The terminal is a real pseudo-terminal made by util-linux's `script`. And what it never
// holds: an API key, wherever a client put it in the URL.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createStorage } from '../src/cards/storage/create-storage.js';
import { loadConfig } from '../src/config.js';
import { hashedKeyEntry } from '../src/http/api-keys.js';
import { createHttpServer } from '../src/http/http-server.js';
import { Metrics } from '../src/http/metrics.js';
import { setUpService } from '../src/http/set-up-service.js';
import { buildIfStale } from './helpers/build.js';
import { cleanEnv, cliBin, runCli } from './helpers/cli.js';
import { freePort, temporaryDir, testApiKey } from './helpers/service.js';
import { standInCards } from './helpers/stand-in-cards.js';

/** Starts `cardwright serve` until it logs that it listens, then stops it; answers what it wrote. */
async function serveOutput(env: Record<string, string>, onTerminal: boolean): Promise<string> {
  buildIfStale();
  const dataDir = temporaryDir();
  const port = await freePort();
  const command = [process.execPath, cliBin, 'serve', '--port', String(port), '--host', '127.0.0.1'];
  // One Markdown worker: each loads the whole Markdown pipeline, and the log is the same with one.
  const serviceEnv = { ...cleanEnv(), MARKDOWN_THREADS: '1', ...env, DATA_DIR: dataDir };
  const child = onTerminal
    ? spawn('script', ['-qfec', command.join(' '), '/dev/null'], { env: serviceEnv, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(command[0]!, command.slice(1), { env: serviceEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.on('close', resolve));
  try {
    for (let waited = 0; waited < 90_000 && !/listening/i.test(output) && child.exitCode === null; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.match(output, /listening/i, `the service started; it wrote: ${output}`);
  } finally {
    // Under `script` the service is a grandchild: Ctrl-C typed on its terminal stops it, as a user would.
    if (onTerminal) child.stdin!.end('\u0003');
    child.kill('SIGTERM');
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return output;
}

const jsonLines = (output: string) =>
  output
    .split(/\r?\n/)
    .filter((line) => line.trim().startsWith('{'))
    .map((line) => JSON.parse(line));

describe('service logs', () => {
  it('are readable lines on a terminal, and JSON there when LOG_FORMAT=json', async () => {
    // Both started at once: each service is a process of its own, on a port of its own.
    const [pretty, json] = await Promise.all([
      serveOutput({ LOG_LEVEL: 'info', API_KEYS: 'log-key-0123456789abcdef' }, true),
      serveOutput({ LOG_LEVEL: 'info', LOG_FORMAT: 'json', API_KEYS: 'log-key-0123456789abcdef' }, true),
    ]);
    assert.match(pretty, /INFO.*Server listening at http:\/\/127\.0\.0\.1:\d+/);
    assert.deepEqual(jsonLines(pretty), [], 'no JSON line on a terminal');
    assert.ok(jsonLines(json).some((line) => /Server listening/.test(line.msg) && line.level === 30));
  });

  it('are JSON lines when written to a pipe, and readable there when LOG_FORMAT=pretty', async () => {
    const [piped, pretty] = await Promise.all([
      serveOutput({ LOG_LEVEL: 'info', API_KEYS: 'log-key-0123456789abcdef' }, false),
      serveOutput({ LOG_LEVEL: 'info', LOG_FORMAT: 'pretty', API_KEYS: 'log-key-0123456789abcdef' }, false),
    ]);
    assert.ok(jsonLines(piped).some((line) => /Server listening/.test(line.msg)));
    assert.match(pretty, /INFO.*Server listening at/);
    assert.deepEqual(jsonLines(pretty), []);
  });

  it('refuses an unknown LOG_FORMAT and a DATA_DIR under /proc at start-up, at once', async () => {
    const format = await runCli(['serve'], { env: { LOG_FORMAT: 'xml' }, timeoutMs: 30_000 });
    assert.equal(format.code, 1);
    assert.match(format.stderr, /LOG_FORMAT must be one of json, pretty, auto; got "xml"/);

    const proc = await runCli(['serve'], { env: { DATA_DIR: '/proc/cardwright-data' }, timeoutMs: 30_000 });
    assert.equal(proc.code, 1);
    assert.match(proc.stderr, /DATA_DIR is \/proc\/cardwright-data, on the kernel's \/proc pseudo-filesystem, where nothing can be stored/);
  });
});

describe('the request log', () => {
  it('never holds a configured API key, in any query parameter, parameter name or path segment', async () => {
    const dataDir = temporaryDir();
    const hashedOnly = 'hashed-log-key-0123456789abcdef';
    const keyFile = `${dataDir}/keys.txt`;
    fs.writeFileSync(keyFile, `${hashedKeyEntry(hashedOnly)}\n`);
    const config = loadConfig({ DATA_DIR: dataDir, API_KEYS: testApiKey, API_KEYS_FILE: keyFile });
    let logged = '';
    const stream = new Writable({
      write(chunk, _encoding, done) {
        logged += chunk.toString();
        done();
      },
    });
    const server = createHttpServer(config, { level: 'info', stream });
    try {
      await setUpService(server, { config, cards: standInCards().cards, storage: await createStorage(config), metrics: new Metrics() });
      const escaped = encodeURIComponent(testApiKey);
      const urls = [
        `/health?x=${testApiKey}`,
        `/health?x=${escaped}&y=1`,
        `/health?${testApiKey}`,
        `/health?note=Bearer%20${escaped}`,
        `/files/${testApiKey}`,
        `/nowhere/${testApiKey}/x`,
        `/health?api_key=not-a-key-at-all`,
        `/health?q=${hashedOnly}`,
      ];
      for (const url of urls) await server.inject({ method: 'GET', url });
      const requests = logged
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .filter((line) => line.req);
      assert.equal(requests.length, urls.length, logged);
      assert.ok(!logged.includes(testApiKey) && !logged.includes(escaped), `a key was logged:\n${logged}`);
      assert.ok(!logged.includes(hashedOnly), `a key given only as a digest was logged:\n${logged}`);
      assert.ok(!logged.includes('not-a-key-at-all'), 'a secret-looking parameter was logged');
      assert.deepEqual(
        requests.map((line) => line.req.url),
        [
          '/health?x=[redacted]',
          '/health?x=[redacted]&y=1',
          '/health?[redacted]',
          '/health?note=[redacted]',
          '/files/[redacted]',
          '/nowhere/[redacted]/x',
          '/health?api_key=[redacted]',
          '/health?q=[redacted]',
        ],
      );
    } finally {
      await server.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
