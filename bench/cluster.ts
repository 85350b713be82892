// `npm run bench:cluster`: the same load against 1 and then 3 replicas behind HAProxy, each
// replica a `node dist/server.js` process with S3 storage (s3rver) and Redis, as deployed when
// scaling out (docs/scaling.md). Prints throughput, latency percentiles, errors and each replica's
// memory for both, and the ratio of their throughputs. It measures; it asserts nothing.
//
// Every replica gets the same settings (RENDER_CONCURRENCY=1: one render at a time), so the ratio
// shows what adding replicas gives on this machine; with fewer cores than replicas it cannot be 3.
// Knobs: LOAD_SECONDS (default 15), LOAD_CONNECTIONS (default 6).
import os from 'node:os';
import { killAll, startHaproxy, startRedis, startReplica, type Replica } from '../test/helpers/cluster.js';
import { metric } from '../test/helpers/metrics.js';
import { startS3rver } from '../test/helpers/s3rver.js';
import { sendCardLoad } from './lib/card-load.js';
import { treePssMb } from './lib/memory.js';

const seconds = Number(process.env.LOAD_SECONDS ?? 15);
const connections = Number(process.env.LOAD_CONNECTIONS ?? 6);
const apiKey = 'bench-cluster-key-0123456789abcdef';

interface Run {
  replicas: number;
  throughput: number;
  total: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  errors: number;
  non2xx: number;
  memoryMb: number[];
}

/** PSS of a replica's node process and every Chromium process it started, in MB. */
const replicaMemory = (replica: Replica) => treePssMb(replica.child.pid!);

async function idle(replicas: Replica[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (const replica of replicas) {
    while (Date.now() < deadline) {
      const busy = (await metric(replica.baseUrl, 'cardwright_active_renders')) + (await metric(replica.baseUrl, 'cardwright_queue_length'));
      if (busy === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  // The last upload may be on its way after its render finished.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
}

async function measure(count: number, env: Record<string, string>): Promise<Run> {
  const replicas = await Promise.all(Array.from({ length: count }, (_, i) => startReplica(`r${i + 1}`, env, 120_000)));
  const balancer = await startHaproxy(replicas);
  try {
    // Until every replica is in rotation, then one warm-up card each.
    for (let i = 0; i < 50; i += 1) {
      const seen = new Set<string>();
      for (let j = 0; j < count * 2; j += 1) seen.add((await fetch(`${balancer.url}/ready`)).headers.get('x-served-by') ?? '');
      if (seen.size === count) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const replica of replicas) {
      await fetch(`${replica.baseUrl}/api/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify({ markdown: '# warm-up' }),
      }).then((response) => response.arrayBuffer());
    }
    const result = await sendCardLoad({ baseUrl: balancer.url, apiKey, connections, seconds, label: `${count}-` });
    // Requests autocannon gave up on at the end are still rendering and uploading: let them finish
    // before the replicas are stopped, so the store is not written to while it is closed.
    await idle(replicas);
    return {
      replicas: count,
      throughput: result.requests.total / seconds,
      total: result.requests.total,
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
      memoryMb: replicas.map(replicaMemory),
    };
  } finally {
    for (const replica of replicas) replica.child.kill('SIGKILL');
    await balancer.stop();
  }
}

async function main(): Promise<void> {
  const s3 = await startS3rver();
  const redis = await startRedis();
  const env = s3.env({ REDIS_URL: redis.url, API_KEYS: apiKey, RENDER_CONCURRENCY: '1', MARKDOWN_THREADS: '1', LOG_LEVEL: 'warn', RENDER_CACHE: 'off' });
  try {
    const one = await measure(1, env);
    const three = await measure(3, env);
    console.log(`\nCluster load: ${connections} connections for ${seconds} s against POST /api/generate through HAProxy`);
    console.log(`(a different small card each time; every replica RENDER_CONCURRENCY=1; ${os.availableParallelism()} cores, ${os.loadavg()[0]!.toFixed(1)} load average now)\n`);
    for (const run of [one, three]) {
      console.log(`  ${run.replicas} replica${run.replicas > 1 ? 's' : ' '}  ${run.throughput.toFixed(1)} cards/s (${run.total} requests)`);
      console.log(`             latency p50 ${run.p50} ms, p90 ${run.p90} ms, p99 ${run.p99} ms, max ${run.max} ms`);
      console.log(`             errors ${run.errors}, non-2xx ${run.non2xx}`);
      console.log(`             memory (PSS, node + Chromium) per replica: ${run.memoryMb.map((value) => `${value.toFixed(0)} MB`).join(', ')}`);
    }
    console.log(`\n  ratio 3 : 1 = ${(three.throughput / one.throughput).toFixed(2)}`);
  } finally {
    killAll();
    await s3.close();
  }
}

main().catch((error) => {
  console.error(error);
  killAll();
  process.exit(1);
});
