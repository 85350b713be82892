// What the hostile-input suites (test/hostile*.test.ts) share: a JSON POST that answers status,
// body and time, and the check that /health kept answering fast while an attack ran.
import assert from 'node:assert/strict';
import type { HealthReport } from './health-watch.js';

/** POSTs JSON and answers status, parsed body, headers and the time it took. */
export { postJson as post } from './post-json.js';

/**
 * /health while an attack runs: it never fails, its median stays under 50 ms once there are enough
 * answers for a median, and no answer waits a second (before the worker pool, one document held it
 * for 150 s). The slowest answer is bounded generously because the test machine's cores are shared;
 * `npm run bench:hostile` measures the real figures.
 */
const healthMedianMs = 50;
const healthWorstMs = 1000;

export function assertHealthy(report: HealthReport, during: string): void {
  if (process.env.SHOW_HEALTH) console.log(during.slice(0, 40), JSON.stringify(report));
  assert.equal(report.failures, 0, `/health failed ${report.failures} times during ${during}`);
  assert.ok(report.count > 0, `/health never answered during ${during}`);
  if (report.count >= 10) assert.ok(report.p50 < healthMedianMs, `/health took ${report.p50.toFixed(0)} ms (median) during ${during}`);
  assert.ok(report.max < healthWorstMs, `/health took up to ${report.max.toFixed(0)} ms during ${during}`);
}

