// Starts the real service (real Chromium, real HTTP on loopback) for a test file, with its own
// data directory and API key, and stops it again. Tests talk to it with fetch, as clients do.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildApp, type App } from '../../src/http/app.js';
import { loadConfig } from '../../src/config.js';
import { postJson } from './post-json.js';

export const testApiKey = 'test-key-0123456789abcdef';

export interface RunningService {
  app: App;
  baseUrl: string;
  dataDir: string;
  /** POST /api/generate with the test key (unless headers say otherwise). */
  generate(body: unknown, headers?: Record<string, string>): Promise<{ status: number; json: any; headers: Headers }>;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function temporaryDir(prefix = 'cardwright-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface ServiceOptions {
  /** Receives every log line (JSON) from info level up, e.g. to check what start-up reports. */
  log?: (line: string) => void;
}

/** Set by test/helpers/one-process.ts: the files it runs share one service with the default settings. */
let sharedDefault: { enabled: boolean; service?: Promise<RunningService> } = { enabled: false };

export function shareDefaultService(): void {
  sharedDefault = { enabled: true };
}

export async function closeSharedServices(): Promise<void> {
  const service = await sharedDefault.service?.catch(() => undefined);
  sharedDefault = { enabled: false };
  await service?.close();
}

/**
 * A real service on a free loopback port. With the default settings and no log option, the files
 * that test/helpers/one-process.ts runs together get the same warm service; its close() then
 * leaves it open for the next file, and the process closes it at the end.
 */
export async function startService(env: Record<string, string> = {}, options: ServiceOptions = {}): Promise<RunningService> {
  if (sharedDefault.enabled && Object.keys(env).length === 0 && !options.log) {
    // The shared service keeps the default count of Markdown workers, as the service runs.
    sharedDefault.service ??= startOwnService();
    const service = await sharedDefault.service;
    return { ...service, close: async () => {} };
  }
  // One Markdown worker unless the test asks for more: each worker loads the whole Markdown
  // pipeline through tsx and warms its lazy parts, some 4 s of CPU per service start.
  return startOwnService({ MARKDOWN_THREADS: '1', ...env }, options);
}

async function startOwnService(env: Record<string, string> = {}, options: ServiceOptions = {}): Promise<RunningService> {
  const port = await freePort();
  const dataDir = env.DATA_DIR ?? temporaryDir();
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    API_KEYS: testApiKey,
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    RENDER_CONCURRENCY: '2',
    ...env,
  });
  const logger = options.log
    ? { level: 'info', stream: { write: options.log } }
    : process.env.TEST_LOG
      ? { level: 'debug' }
      : false;
  const app = await buildApp(config, { logger });
  await app.server.listen({ port, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    app,
    baseUrl,
    dataDir,
    async generate(body, headers = {}) {
      const { status, json, headers: answerHeaders } = await postJson(baseUrl, '/api/generate', body, { 'x-api-key': testApiKey, ...headers });
      return { status, json, headers: answerHeaders };
    },
    async close() {
      await app.server.close();
      if (!env.DATA_DIR) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
