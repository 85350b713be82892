// The job queue of replicas that share Redis (REDIS_URL), on BullMQ: a job added on any replica
// is worked on by whichever replica's worker takes it. The job's record (job.ts) is the BullMQ
// job's data, rewritten after every answered request, so a replica that takes over a job skips
// the requests already answered.
// - A replica that dies mid-job stops renewing its lock; after JOBS_STALLED_MS another replica's
//   stalled-job check puts the job back in the queue and a worker takes it up (at most twice).
// - A stopping replica puts its job back in the queue itself, at once.
// - Attempts are bounded (3, a second apart, then doubling), and finished jobs are removed by
//   BullMQ JOBS_TTL_SECONDS after they end.
import { Queue, WaitingError, Worker, type Job as BullJob } from 'bullmq';
import { Redis } from 'ioredis';
import { CardError } from '../cards/errors.js';
import type { Logger } from '../cards/logger.js';
import { finalState, type Job, type JobState } from './job.js';
import type { JobQueue, JobQueueOptions } from './job-queue.js';

export interface BullJobQueueOptions extends JobQueueOptions {
  redisUrl: string;
  concurrency: number;
  ttlMs: number;
  stalledMs: number;
  log: Logger;
}

const queueName = 'cardwright-jobs';
const attempts = 3;

const stateOf: Record<string, JobState> = { waiting: 'queued', delayed: 'queued', prioritized: 'queued', 'waiting-children': 'queued', active: 'running' };

export class BullJobQueue implements JobQueue {
  private readonly queue: Queue<Job>;
  private readonly worker: Worker<Job>;
  private readonly connections: Redis[];
  private readonly stop = new AbortController();

  constructor(private readonly options: BullJobQueueOptions) {
    this.connections = [
      // The routes' connection fails at once while Redis is away, so a client is told to retry (503)
      // instead of waiting, and a job it gave up on is not added later behind its back.
      new Redis(options.redisUrl, { enableOfflineQueue: false }),
      // The worker's blocking commands wait for Redis instead of failing.
      new Redis(options.redisUrl, { maxRetriesPerRequest: null }),
    ];
    const keepSeconds = Math.ceil(options.ttlMs / 1000);
    this.queue = new Queue<Job>(queueName, {
      connection: this.connections[0]!,
      defaultJobOptions: { attempts, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: { age: keepSeconds }, removeOnFail: { age: keepSeconds } },
    });
    this.worker = new Worker<Job>(queueName, (job, token) => this.work(job, token), {
      connection: this.connections[1]!,
      concurrency: options.concurrency,
      lockDuration: options.stalledMs,
      stalledInterval: options.stalledMs,
      maxStalledCount: 2,
      autorun: false,
    });
    this.worker.on('completed', (job) => options.ended(recordOf(job, 'completed')));
    this.worker.on('failed', (job, error) => {
      if (!job || error instanceof WaitingError) return;
      options.log.error({ err: error, job: job.id, attempt: job.attemptsMade }, 'a job attempt failed');
      if (job.attemptsMade >= attempts) options.ended(recordOf(job, 'failed'));
    });
    this.worker.on('stalled', (jobId) => options.log.info({ job: jobId }, 'a job whose replica stopped answering goes back to the queue'));
    const reportError = (error: Error) => options.log.warn({ problem: error.message }, 'job queue (Redis) error');
    this.queue.on('error', reportError);
    this.worker.on('error', reportError);
  }

  start(): void {
    void this.worker.run().catch((error: Error) => this.options.log.error({ err: error }, 'the job worker stopped'));
  }

  async add(job: Job): Promise<void> {
    await unreachableAsBusy(this.queue.add('batch', job, { jobId: job.id }));
  }

  async get(id: string): Promise<Job | undefined> {
    return unreachableAsBusy(
      (async () => {
        const job = await this.queue.getJob(id);
        return job ? recordOf(job, await job.getState()) : undefined;
      })(),
    );
  }

  async close(): Promise<void> {
    this.stop.abort(new DOMException('the service is stopping', 'AbortError'));
    await this.worker.close();
    await this.queue.close();
    for (const connection of this.connections) connection.disconnect();
  }

  private async work(bullJob: BullJob<Job>, token: string | undefined): Promise<void> {
    const record = bullJob.data;
    for (let index = 0; index < record.requests.length; index++) {
      if (record.results[index]) continue;
      const result = await this.options.run(record, index, this.stop.signal);
      if (this.stop.signal.aborted) {
        // Back to the queue for another replica (or this one's next start), with the answers so far.
        await bullJob.moveToWait(token);
        throw new WaitingError();
      }
      record.results[index] = result;
      await bullJob.updateData(record);
    }
  }
}

/** A Redis failure of a route's call, as the service says it is busy: 503 overloaded, retry shortly. */
async function unreachableAsBusy<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw new CardError('busy', 'The job queue (Redis) cannot be reached now; try again shortly.', { retryAfterSeconds: 5, cause: error });
  }
}

/** The record of a BullMQ job in the state BullMQ reports. */
function recordOf(job: BullJob<Job>, bullState: string): Job {
  const record = job.data;
  const finished = bullState === 'completed' || bullState === 'failed';
  const state: JobState = bullState === 'completed' ? finalState(record.results) : bullState === 'failed' ? 'failed' : (stateOf[bullState] ?? 'queued');
  return { ...record, state, ...(finished && job.finishedOn ? { finishedAt: new Date(job.finishedOn).toISOString() } : {}) };
}
