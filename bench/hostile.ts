// `npm run bench:hostile`: each hostile input of test/hostile.test.ts sent to the built service
// (`node dist/server.js`) on loopback while a normal client keeps previewing a small document and
// asking /health, and another generating a small card. The attacker and the normal client come
// from different addresses (X-Forwarded-For, with TRUST_PROXY set to loopback), as they would on
// the internet: previews are taken in turns per address. Some attacks are sustained: sent again and
// again for SUSTAIN_SECONDS, as an attacker who wants to hold the previews would. Prints, per
// attack, its statuses and time to answer, the normal client's preview p50/p95 and the p95's ratio
// to the baseline with no attack, /health's worst answer, and the generating client's p50/p95.
// It measures; it asserts nothing.
//
// Knobs: BASELINE_SECONDS (default 5), SUSTAIN_SECONDS (default 8), ATTACKS (only the attacks whose
// name contains this text, e.g. ATTACKS=diagrams) and any service variable (MARKDOWN_THREADS,
// MARKDOWN_CPU_LIMIT_MS, ...) passed through to the service.
import http from 'node:http';
import net from 'node:net';
import { benchApiKey, startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { percentile } from './lib/stats.js';
import { bigDiagramsDocument, heavyFenceDocument, slowFilterSvgsDocument, slowImagesDocument } from '../test/helpers/preview-attacks.js';

const baselineSeconds = Number(process.env.BASELINE_SECONDS ?? 5);
const sustainSeconds = Number(process.env.SUSTAIN_SECONDS ?? 8);
const attacksNamed = process.env.ATTACKS ?? '';
/**
 * The attacker's and the normal client's addresses, as the proxy in front of the service reports
 * them. Each attack comes from an address of its own, so none starts with a budget an earlier
 * attack spent.
 */
let attacker = { 'x-forwarded-for': '203.0.113.1' };
const normal = { 'x-forwarded-for': '198.51.100.7' };
const normalDocument = '# Notes\n\nSome **bold** and *em* text with `code`.\n\n- one\n- two\n\n```ts\nconst answer = 42;\n```\n\n$e^{i\\pi} + 1 = 0$';

interface Attack {
  name: string;
  send(service: ServiceProcess): Promise<string>;
}

const post = (route: string, body: unknown) => async (service: ServiceProcess) => {
  const response = await fetch(`${service.baseUrl}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': benchApiKey, ...attacker },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return String(response.status);
};

/** One connection that declares a 1 MB body and sends a byte every 100 ms, until the server cuts it off. */
const slowBody = async (service: ServiceProcess) => {
  const { hostname, port } = new URL(service.baseUrl);
  return new Promise<string>((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let answer = '';
    socket.setEncoding('utf8');
    socket.write('POST /api/preview HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"markdown":"');
    const drip = setInterval(() => socket.writable && socket.write('a'), 100);
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(drip);
      resolve(/^HTTP\/1\.1 (\d+)/.exec(answer)?.[1] ?? 'closed');
    });
  });
};

/** `send` again every `everyMs` for SUSTAIN_SECONDS, without waiting for answers; their statuses counted, e.g. "200×3 429×5". */
const sustained = (everyMs: number, send: (service: ServiceProcess) => Promise<string>) => async (service: ServiceProcess) => {
  const sent: Array<Promise<string>> = [];
  const until = performance.now() + sustainSeconds * 1000;
  while (performance.now() < until) {
    sent.push(send(service).catch(() => 'error'));
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  const counts = new Map<string, number>();
  for (const status of await Promise.all(sent)) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].sort().map(([status, count]) => `${status}×${count}`).join(' ');
};

/** Images on loopback that answer after 3 s: the slow remote host of an attacker's document. */
function startSlowImages(): Promise<{ origin: string; close(): void }> {
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const server = http.createServer((_request, response) => {
    setTimeout(() => response.writeHead(200, { 'content-type': 'image/png' }).end(png), 3000);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ origin: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, close: () => server.close() })));
}


/** `count` requests at once; their statuses, e.g. "200 200 503 429". */
const many = (count: number, route: string, body: unknown) => async (service: ServiceProcess) =>
  (await Promise.all(Array.from({ length: count }, () => post(route, body)(service)))).sort().join(' ');

/** Nested <use>: drawing it would repeat one square 10^11 times. */
let useBomb = '<path id="a0" d="M0 0h1v1z"/>';
for (let i = 1; i <= 11; i++) useBomb += `<g id="a${i}">${`<use href="#a${i - 1}"/>`.repeat(10)}</g>`;
const useBombSvg = `data:image/svg+xml;base64,${Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400">${useBomb}<use href="#a11"/></svg>`).toString('base64')}`;

const gradientLayers = Array.from({ length: 40 }, (_, i) => `repeating-radial-gradient(circle at ${i * 7}% ${i * 3}%, rgba(${i * 6},80,200,.3) 0 ${i + 1}px, transparent ${i + 2}px ${2 * i + 4}px)`);
const heavyCard = `<div style="height:3900px;background:${gradientLayers.join(',')};filter:blur(9px) saturate(3)">heavy</div>`;

const attacks: Attack[] = [
  { name: '"*_" × 50,000 (preview)', send: post('/api/preview', { markdown: '*_'.repeat(50_000) }) },
  { name: '"[" × 10,000', send: post('/api/generate', { markdown: '['.repeat(10_000) }) },
  { name: 'ts block "a=/[" × 24,000', send: post('/api/generate', { markdown: `\`\`\`ts\n${'a=/['.repeat(24_000)}\n\`\`\`` }) },
  { name: '16,000 KaTeX formulas', send: post('/api/generate', { markdown: '$x^2$ '.repeat(16_000) }) },
  { name: '"- " × 1,500', send: post('/api/generate', { markdown: `${'- '.repeat(1500)}x` }) },
  { name: '"1. " × 1,500', send: post('/api/generate', { markdown: `${'1. '.repeat(1500)}x` }) },
  { name: '"> - " × 1,000', send: post('/api/generate', { markdown: `${'> - '.repeat(1000)}x` }) },
  { name: '"> " × 3,000', send: post('/api/generate', { markdown: `${'> '.repeat(3000)}x` }) },
  { name: '<div> × 5,000', send: post('/api/generate', { markdown: `${'<div>'.repeat(5000)}x` }) },
  { name: 'MDX <span> × 3,000', send: post('/api/generate', { markdown: `${'<span>'.repeat(3000)}x${'</span>'.repeat(3000)}`, mdxMode: true }) },
  { name: 'highlight list of 12,000 ranges', send: post('/api/generate', { markdown: `\`\`\`ts {${Array.from({ length: 12_000 }, (_, i) => i + 1).join(',')}}\nx\n\`\`\`` }) },
  { name: 'slow body (1 byte / 100 ms)', send: slowBody },
  { name: 'SVG <use> bomb (split preview)', send: post('/api/preview', { markdown: `![bomb](${useBombSvg})`, splitMode: 'autoSplit' }) },
  { name: 'stacked gradients, 2000×4000 × 2', send: post('/api/generate', { markdown: heavyCard, width: 2000, height: 4000, scale: 2, overHiddenMode: true }) },
  { name: '50 cards of 2000×4000 × 3', send: post('/api/generate', { markdown: Array.from({ length: 50 }, (_, i) => `# ${i}`).join('\n\n---\n\n'), splitMode: 'hrSplit', width: 2000, height: 4000, scale: 3 }) },
  { name: '6 split previews at once, 2000×2000', send: many(6, '/api/preview', { markdown: '# a\n\n---\n\n# b\n\n---\n\n# c', splitMode: 'hrSplit', width: 2000, height: 2000, scale: 2 }) },
  { name: '50 slow-filter SVGs (generate)', send: post('/api/generate', { markdown: slowFilterSvgsDocument(50), scale: 1 }) },
  { name: '45 reference-style images (preview) × 3', send: many(3, '/api/preview', { markdown: `${Array.from({ length: 45 }, (_, i) => `![${i}][r${i}]`).join(' ')}\n\n${Array.from({ length: 45 }, (_, i) => `[r${i}]: http://203.0.113.1/${i}.png`).join('\n')}` }) },
  // Sustained: the same previews again and again from one address.
  { name: '50 slow remote images (preview) /500 ms', send: (service) => sustained(500, post('/api/preview', { markdown: slowImagesOf() }))(service) },
  { name: '50 slow-filter SVGs (preview) /500 ms', send: sustained(500, post('/api/preview', { markdown: slowFilterSvgsDocument(50) })) },
  { name: '24 KB ts fence (preview) /1 s', send: sustained(1000, post('/api/preview', { markdown: heavyFenceDocument })) },
  { name: '9 diagrams of 499 edges (preview) /1 s', send: sustained(1000, post('/api/preview', { markdown: bigDiagramsDocument })) },
];

let slowImages: { origin: string; close(): void } | undefined;
const slowImagesOf = () => slowImagesDocument(slowImages!.origin, (i) => `/${i}-${Math.random()}.png`);

/** A normal client (previews, one at a time) and a /health prober, until stopped. */
function normalClient(service: ServiceProcess) {
  const preview: number[] = [];
  const health: number[] = [];
  const generate: number[] = [];
  let running = true;
  const loop = async (samples: number[], request: () => Promise<Response>, pauseMs: number) => {
    while (running) {
      const started = performance.now();
      const response = await request().catch(() => undefined);
      await response?.arrayBuffer();
      if (response?.ok) samples.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  };
  const loops = Promise.all([
    // About 5 previews a second: well within one client's preview budget.
    loop(preview, () => fetch(`${service.baseUrl}/api/preview`, { method: 'POST', headers: { 'content-type': 'application/json', ...normal }, body: JSON.stringify({ markdown: normalDocument }) }), 200),
    loop(health, () => fetch(`${service.baseUrl}/health`), 20),
    // A paying client: a small card twice a second, which previews must never hold up.
    loop(generate, () => service.generate({ markdown: '# Normal card' }), 500),
  ]);
  return {
    async stop() {
      running = false;
      await loops;
      return { preview, health, generate };
    },
  };
}

const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)} ms` : '–');
const row = (cells: string[]) => console.log(cells.map((cell, i) => cell.padEnd([42, 26, 11, 30, 14, 22][i] ?? 10)).join(''));
const latencies = (samples: number[]) => `${ms(percentile(samples, 50))} / ${ms(percentile(samples, 95))}`;
const worst = (samples: number[]) => ms(Math.max(...samples));

async function main(): Promise<void> {
  slowImages = await startSlowImages();
  const service = await startServiceProcess({
    LOG_LEVEL: 'warn',
    RENDER_CACHE: 'off',
    TRUST_PROXY: '127.0.0.1',
    REMOTE_IMAGES_ALLOWLIST: new URL(slowImages.origin).host,
  });
  try {
    await (await service.generate({ markdown: '# warm-up' })).arrayBuffer();
    row(['attack', 'statuses', 'answered', 'other preview p50 / p95 (×)', '/health worst', 'generate p50 / p95']);
    const baseline = normalClient(service);
    await new Promise((resolve) => setTimeout(resolve, baselineSeconds * 1000));
    const quiet = await baseline.stop();
    const quietP95 = percentile(quiet.preview, 95);
    row(['(none: baseline)', '', '', latencies(quiet.preview), worst(quiet.health), latencies(quiet.generate)]);
    for (const [index, attack] of attacks.entries()) {
      if (!attack.name.includes(attacksNamed)) continue;
      attacker = { 'x-forwarded-for': `203.0.113.${index + 1}` };
      const client = normalClient(service);
      const started = performance.now();
      const status = await attack.send(service);
      const took = performance.now() - started;
      // At least a second of the normal client's figures, however fast the attack was refused.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - took)));
      const during = await client.stop();
      const ratio = percentile(during.preview, 95) / quietP95;
      row([attack.name, status, ms(took), `${latencies(during.preview)} (${Number.isFinite(ratio) ? ratio.toFixed(1) : '–'}×)`, worst(during.health), latencies(during.generate)]);
      // Let the pool settle (a worker stopped for its CPU budget is being replaced).
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  } finally {
    await service.stop();
    slowImages.close();
  }
}

await main();
