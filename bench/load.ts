// `npm run bench:load`: a bounded load test with autocannon against the built service on loopback.
// Every request is a different small card (so the render cache cannot answer it). Prints
// throughput, latency percentiles, answers by status, errors, and memory of the service process and
// of its Chromium processes (RSS and PSS from /proc) before and after. It measures; it asserts nothing.
//
// Knobs: LOAD_SECONDS (default 10), LOAD_CONNECTIONS (default 8), and any service variable
// (RENDER_CONCURRENCY, QUEUE_MAX, ...) passed through to the service.
import fs from 'node:fs';
import { sendCardLoad } from './lib/card-load.js';
import { processTree } from './lib/memory.js';
import { benchApiKey, startServiceProcess } from './lib/service-process.js';

const seconds = Number(process.env.LOAD_SECONDS ?? 10);
const connections = Number(process.env.LOAD_CONNECTIONS ?? 8);

interface Memory {
  rssMb: number;
  pssMb: number;
}

function memoryOf(pids: number[]): Memory {
  let rss = 0;
  let pss = 0;
  for (const pid of pids) {
    try {
      const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // the process ended while we looked
    }
  }
  return { rssMb: rss / 1024, pssMb: pss / 1024 };
}

/** Memory of the service's own node process, and of everything it started (Chromium). */
function snapshot(servicePid: number): { node: Memory; browser: Memory; browserProcesses: number } {
  const descendants = processTree(servicePid).filter((pid) => pid !== servicePid);
  return { node: memoryOf([servicePid]), browser: memoryOf(descendants), browserProcesses: descendants.length };
}

const mb = (value: number) => `${value.toFixed(0)} MB`;

function printMemory(label: string, memory: ReturnType<typeof snapshot>): void {
  console.log(
    `  ${label.padEnd(7)} node RSS ${mb(memory.node.rssMb)}, PSS ${mb(memory.node.pssMb)};` +
      ` Chromium (${memory.browserProcesses} processes) RSS ${mb(memory.browser.rssMb)}, PSS ${mb(memory.browser.pssMb)}`,
  );
}

async function main(): Promise<void> {
  const service = await startServiceProcess({ LOG_LEVEL: 'warn' });
  try {
    // One request so the pages have fonts and the pipeline is warm, as in steady state.
    await (await service.generate({ markdown: '# warm-up' })).arrayBuffer();
    const before = snapshot(service.pid);

    const result = await sendCardLoad({ baseUrl: service.baseUrl, apiKey: benchApiKey, connections, seconds });
    const after = snapshot(service.pid);

    console.log(`\nLoad: ${connections} connections for ${seconds} s against POST /api/generate (a different small card each time)\n`);
    console.log(`  throughput  ${result.requests.average.toFixed(1)} req/s average (${result.requests.total} requests)`);
    console.log(
      `  latency     p50 ${result.latency.p50} ms, p90 ${result.latency.p90} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
    );
    const byStatus = Object.entries(result.statusCodeStats ?? {})
      .map(([status, stats]) => `${status}: ${stats.count ?? 0}`)
      .join(', ');
    console.log(`  answers     ${byStatus || 'none'}`);
    console.log(`  errors      ${result.errors} connection errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`);
    console.log('  memory');
    printMemory('before', before);
    printMemory('after', after);
  } finally {
    await service.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
