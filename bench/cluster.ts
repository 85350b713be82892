// `npm run bench:cluster`: the same load against 1 and then 3 replicas behind HAProxy, each
// replica a `node dist/server.js` process with S3 storage (s3rver) and Redis, as deployed when
// scaling out (docs/scaling.md). Prints throughput, latency percentiles, errors and each replica's
// memory for both, and the ratio of their throughputs. Then, on the same replicas, one batch of
// BATCH_SIZE requests as one job (POST /api/jobs, BullMQ on the Redis): its time from submission to
// done, cards per second and how many requests each replica answered. It measures; it asserts nothing.
//
// Every replica gets the same settings (RENDER_CONCURRENCY=1: one render at a time), so the ratio
// shows what adding replicas gives on this machine; with fewer cores than replicas it cannot be 3.
// Knobs: LOAD_SECONDS (default 15), LOAD_CONNECTIONS (default 6), BATCH_SIZE (default 200, the most one job takes).
import os from 'node:os';
import { killAll, startHaproxy, startRedis, startReplica, type Replica } from '../test/helpers/cluster.js';
import { metric } from '../test/helpers/metrics.js';
import { startS3rver } from '../test/helpers/s3rver.js';
import { sendCardLoad } from './lib/card-load.js';
import { treePssMb } from './lib/memory.js';

const seconds = Number(process.env.LOAD_SECONDS ?? 15);
const connections = Number(process.env.LOAD_CONNECTIONS ?? 6);
const batchSize = Number(process.env.BATCH_SIZE ?? 200);
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
  batch: BatchRun;
}

interface BatchRun {
  seconds: number;
  succeeded: number;
  failed: number;
  /** Images stored by each replica during the batch. */
  perReplica: number[];
}

/** One batch of `batchSize` small cards as one job, polled until it has ended. */
async function runBatch(baseUrl: string, replicas: Replica[]): Promise<BatchRun> {
  const stored = (replica: Replica) => metric(replica.baseUrl, 'cardwright_images_stored_total');
  const before = await Promise.all(replicas.map(stored));
  const started = performance.now();
  const requests = Array.from({ length: batchSize }, (_, i) => ({
    markdown: `# Batch note ${i}\n\nOne of the day's notes, made into a card while nobody waits.`,
    width: 440,
    height: 586,
  }));
  const answer = await fetch(`${baseUrl}/api/jobs`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify({ requests }) });
  if (answer.status !== 202) throw new Error(`POST /api/jobs answered ${answer.status}: ${await answer.text()}`);
  const { id } = (await answer.json()) as { id: string };
  let job: { state: string; results: { status: number }[] };
  do {
    await new Promise((resolve) => setTimeout(resolve, 250));
    job = (await (await fetch(`${baseUrl}/api/jobs/${id}`, { headers: { 'x-api-key': apiKey } })).json()) as typeof job;
  } while (job.state !== 'done' && job.state !== 'failed');
  const results = job.results;
  const seconds = (performance.now() - started) / 1000;
  const after = await Promise.all(replicas.map(stored));
  return {
    seconds,
    succeeded: results.filter((result) => result.status === 200).length,
    failed: results.filter((result) => result.status !== 200).length,
    perReplica: after.map((count, i) => count - before[i]!),
  };
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
    const batch = await runBatch(balancer.url, replicas);
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
      batch,
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
    console.log(`\nBatch: ${batchSize} small cards (440×586) as one job (POST /api/jobs), submitted to HAProxy, polled until done`);
    for (const run of [one, three]) {
      const { batch } = run;
      console.log(
        `  ${run.replicas} replica${run.replicas > 1 ? 's' : ' '}  ${batch.seconds.toFixed(1)} s, ${(batch.succeeded / batch.seconds).toFixed(1)} cards/s, ${batch.succeeded} answered 200, ${batch.failed} otherwise; images stored per replica: ${batch.perReplica.join(', ')}`,
      );
    }
    console.log(`\n  batch ratio 3 : 1 = ${(one.batch.seconds / three.batch.seconds).toFixed(2)}`);
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
