// Benchmark: one default card end to end over HTTP (warm), and process start → first card.
// Starts the built service as a user would (`node dist/server.js`), on loopback, and stops it.
// Run with `npm run bench:first-card` (builds first). Prints figures; it asserts nothing.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test/helpers/service.js';

const requests = Number(process.env.BENCH_REQUESTS ?? 60);
const apiKey = 'bench-key-0123456789abcdef';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function generate(baseUrl: string, body: unknown): Promise<Response> {
  return fetch(`${baseUrl}/api/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify(body),
  });
}

async function main(): Promise<void> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cardwright-bench-'));
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/server.js'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, API_KEYS: apiKey, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    let firstCardMs = 0;
    for (;;) {
      try {
        const response = await generate(baseUrl, {});
        if (response.ok) {
          firstCardMs = performance.now() - started;
          break;
        }
      } catch {
        // not listening yet
      }
      if (performance.now() - started > 30_000) throw new Error('the service did not answer within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    for (let i = 0; i < 5; i++) await generate(baseUrl, {});
    const timings: number[] = [];
    for (let i = 0; i < requests; i++) {
      const t0 = performance.now();
      const response = await generate(baseUrl, { markdown: `# Card ${i}\n\nHello, cardwright.` });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`request failed with ${response.status}`);
      timings.push(performance.now() - t0);
    }
    timings.sort((a, b) => a - b);
    console.log(`process start → first card: ${firstCardMs.toFixed(0)} ms`);
    console.log(`one default card, warm, ${requests} sequential requests: median ${percentile(timings, 50).toFixed(1)} ms, p95 ${percentile(timings, 95).toFixed(1)} ms`);
  } finally {
    child.kill('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
