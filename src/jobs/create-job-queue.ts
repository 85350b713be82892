// The job queue this service runs on: BullMQ on Redis when REDIS_URL is set (every replica works
// on every job), otherwise files in DATA_DIR/jobs worked on by this process.
import type { Logger } from '../cards/logger.js';
import type { Config } from '../config.js';
import type { JobQueue, JobQueueOptions } from './job-queue.js';
import { LocalJobQueue } from './local-job-queue.js';

export async function createJobQueue(config: Config, options: JobQueueOptions, log: Logger): Promise<JobQueue> {
  if (config.redisUrl) {
    const { BullJobQueue } = await import('./bullmq-job-queue.js');
    return new BullJobQueue({ ...options, redisUrl: config.redisUrl, concurrency: config.jobs.concurrency, ttlMs: config.jobs.ttlMs, stalledMs: config.jobs.stalledMs, log });
  }
  return new LocalJobQueue({ ...options, dataDir: config.dataDir, concurrency: config.jobs.concurrency, ttlMs: config.jobs.ttlMs, log });
}
