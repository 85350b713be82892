// The job queue of replicas that share Redis (REDIS_URL), on BullMQ. A job is a BullMQ flow: a
// parent "batch" job holding the record, and a child "request" job per request, so the requests of
// one batch spread over every replica's worker (a batch of 200 on three replicas runs on all three).
// A child's answer is its return value, which BullMQ keeps with the parent; once the last child has
// ended, the parent runs once on some replica to put the answers in order, and ends the job.
// - A replica that dies mid-request stops renewing that request's lock; after JOBS_STALLED_MS another
//   replica's stalled-job check puts the request back in the queue (twice at most; then the request
//   is answered as failed, and the rest of the job is not held up).
// - A stopping replica puts the request it was running back in the queue itself, at once.
// - Finished jobs are removed by BullMQ JOBS_TTL_SECONDS after they end; a request's job as soon as
//   it ends (its answer stays with its batch).
// - A finished job's callback is a job of a second queue, posted by whichever replica takes it and
//   retried by BullMQ with its back-off, so a replica's death does not lose it; it has workers of its
//   own, so a slow receiver never holds up the cards.
import { DelayedError, FlowProducer, Queue, WaitingError, Worker, type Job as BullJob } from 'bullmq';
import { Redis } from 'ioredis';
import { CardError } from '../cards/errors.js';
import type { Logger } from '../cards/logger.js';
import { finalState, type Job, type JobItem, type JobResult, type JobState, type JobStatus } from './job.js';
import type { JobQueue, JobQueueOptions } from './job-queue.js';

export interface BullJobQueueOptions extends JobQueueOptions {
  redisUrl: string;
  concurrency: number;
  ttlMs: number;
  stalledMs: number;
  log: Logger;
}

/** A batch's BullMQ data: the record without the request bodies, which its children carry. */
type BatchData = Omit<JobStatus, 'results' | 'state'> & { total: number };

const queueName = 'cardwright-jobs';
const callbackQueueName = 'cardwright-job-callbacks';
const attempts = 3;
/** Callbacks posted at once by one replica: each waits on a receiver, not on this machine. */
const callbackConcurrency = 8;

const requestJobId = (jobId: string, index: number) => `${jobId}-${index}`;
/** The index of a request from its BullMQ key (`bull:cardwright-jobs:<job id>-<index>`). */
const indexOfKey = (key: string) => Number(/-(\d+)$/.exec(key)?.[1] ?? -1);

export class BullJobQueue implements JobQueue {
  private readonly queue: Queue;
  private readonly flows: FlowProducer;
  private readonly worker: Worker;
  private readonly callbackQueue: Queue;
  private readonly callbackWorker: Worker;
  private readonly connections: Redis[];
  private readonly stop = new AbortController();
  /** How long BullMQ keeps a finished job (JOBS_TTL_SECONDS). */
  private readonly keepSeconds: number;

  constructor(private readonly options: BullJobQueueOptions) {
    this.keepSeconds = Math.ceil(options.ttlMs / 1000);
    this.connections = [
      // The routes' connection fails at once while Redis is away, so a client is told to retry (503)
      // instead of waiting, and a job it gave up on is not added later behind its back.
      new Redis(options.redisUrl, { enableOfflineQueue: false }),
      // The worker's blocking commands wait for Redis instead of failing.
      new Redis(options.redisUrl, { maxRetriesPerRequest: null }),
    ];
    this.queue = new Queue(queueName, { connection: this.connections[0]! });
    this.flows = new FlowProducer({ connection: this.connections[0]! });
    this.worker = new Worker(queueName, (job, token) => (job.name === 'request' ? this.runRequest(job, token) : this.finishBatch(job)), {
      connection: this.connections[1]!,
      concurrency: options.concurrency,
      lockDuration: options.stalledMs,
      stalledInterval: options.stalledMs,
      maxStalledCount: 2,
      autorun: false,
    });
    this.worker.on('failed', (job, error) => {
      if (!job || error instanceof WaitingError) return;
      options.log.error({ err: error, job: job.id, attempt: job.attemptsMade }, job.name === 'batch' ? 'a job could not be finished' : 'a job request failed');
      if (job.name === 'batch' && job.attemptsMade >= attempts) void this.queueCallback(job.data);
    });
    this.callbackQueue = new Queue(callbackQueueName, { connection: this.connections[0]! });
    this.callbackWorker = new Worker(callbackQueueName, (job, token) => this.postCallback(job, token), {
      connection: this.connections[1]!,
      concurrency: callbackConcurrency,
      autorun: false,
    });
    this.worker.on('stalled', (jobId) => options.log.info({ job: jobId }, 'a job request whose replica stopped answering goes back to the queue'));
    const reportError = (error: Error) => options.log.warn({ problem: error.message }, 'job queue (Redis) error');
    for (const queue of [this.queue, this.callbackQueue]) queue.on('error', reportError);
    for (const worker of [this.worker, this.callbackWorker]) worker.on('error', reportError);
  }

  start(): void {
    for (const worker of [this.worker, this.callbackWorker]) void worker.run().catch((error: Error) => this.options.log.error({ err: error }, 'the job worker stopped'));
  }

  async add(job: Job): Promise<void> {
    const { requests, results: _results, state: _state, ...record } = job;
    const data: BatchData = { ...record, total: requests.length };
    await unreachableAsBusy(
      this.flows.add({
        name: 'batch',
        queueName,
        data,
        opts: { jobId: job.id, attempts, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: { age: this.keepSeconds }, removeOnFail: { age: this.keepSeconds } },
        children: requests.map((request, index) => ({
          name: 'request',
          queueName,
          data: { jobId: job.id, owner: job.owner, index, request } satisfies JobItem,
          // A request that fails for good (its replicas kept dying) is answered as failed by its batch.
          opts: { jobId: requestJobId(job.id, index), attempts, removeOnComplete: true, removeOnFail: { age: this.keepSeconds }, ignoreDependencyOnFailure: true },
        })),
      }),
    );
  }

  async get(id: string): Promise<JobStatus | undefined> {
    return unreachableAsBusy(
      (async () => {
        const job: BullJob<BatchData> | undefined = await this.queue.getJob(id);
        if (job?.name !== 'batch') return undefined;
        const bullState = await job.getState();
        if (bullState === 'completed') return batchStatus(job, bullState, job.returnvalue as (JobResult | null)[]);
        const results = await this.answersSoFar(job);
        // Waiting for its requests, of which some are answered: running.
        const started = bullState === 'waiting-children' && results.some((result) => result);
        return batchStatus(job, started ? 'active' : bullState, results);
      })(),
    );
  }

  async close(): Promise<void> {
    this.stop.abort(new DOMException('the service is stopping', 'AbortError'));
    await Promise.all([this.worker.close(), this.callbackWorker.close()]);
    await this.flows.close();
    await Promise.all([this.queue.close(), this.callbackQueue.close()]);
    for (const connection of this.connections) connection.disconnect();
  }

  private async runRequest(job: BullJob<JobItem>, token: string | undefined): Promise<JobResult> {
    const result = await this.options.run(job.data, this.stop.signal);
    if (this.stop.signal.aborted) {
      // Back to the queue for another replica (or this one's next start).
      await job.moveToWait(token);
      throw new WaitingError();
    }
    return result;
  }

  /** Runs once every request of the batch has ended: their answers, in order, are the batch's return value. */
  private async finishBatch(job: BullJob<BatchData>): Promise<(JobResult | null)[]> {
    const results = await this.answersSoFar(job);
    await this.queueCallback(job.data);
    return results;
  }

  /** Queues the callback of a job that is ending; once only, however often this runs for it (its id is the job's). */
  private async queueCallback(batch: BatchData): Promise<void> {
    const { callbacks } = this.options;
    if (!callbacks || !batch.callbackUrl) return;
    await this.callbackQueue.add(
      'callback',
      { jobId: batch.id },
      { jobId: batch.id, attempts: callbacks.attempts, backoff: { type: 'exponential', delay: callbacks.retryMs }, removeOnComplete: true, removeOnFail: { age: this.keepSeconds } },
    );
  }

  /** One attempt at posting a finished job to its callbackUrl; a failure is retried by BullMQ. */
  private async postCallback(job: BullJob<{ jobId: string }>, token: string | undefined): Promise<void> {
    const status = await this.get(job.data.jobId);
    if (!status?.callbackUrl || !this.options.callbacks) return;
    if (status.state !== 'done' && status.state !== 'failed') {
      // Queued while its batch was still ending: posted once the batch has ended.
      await job.moveToDelayed(Date.now() + 500, token);
      throw new DelayedError();
    }
    await this.options.callbacks.deliver({ ...status, callbackUrl: status.callbackUrl }, job.attemptsMade + 1);
  }

  /** Each request's answer, null while it has none; a request given up on is answered as failed. */
  private async answersSoFar(job: BullJob<BatchData>): Promise<(JobResult | null)[]> {
    const results: (JobResult | null)[] = Array.from({ length: job.data.total }, () => null);
    for (const [key, value] of Object.entries(await job.getChildrenValues<JobResult>())) results[indexOfKey(key)] = value;
    for (const key of Object.keys(await job.getIgnoredChildrenFailures())) {
      const index = indexOfKey(key);
      results[index] ??= this.options.gaveUp({ jobId: job.data.id, owner: job.data.owner, index });
    }
    return results;
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

const stateOf: Record<string, JobState> = { 'waiting-children': 'queued', waiting: 'running', delayed: 'running', prioritized: 'running', active: 'running' };

/** The status of a batch in the state BullMQ reports, with its answers so far. */
function batchStatus(job: BullJob<BatchData>, bullState: string, results: (JobResult | null)[]): JobStatus {
  const { total: _total, ...record } = job.data;
  const finished = bullState === 'completed' || bullState === 'failed';
  const state: JobState = bullState === 'completed' ? finalState(results) : bullState === 'failed' ? 'failed' : (stateOf[bullState] ?? 'queued');
  return { ...record, state, results, ...(finished && job.finishedOn ? { finishedAt: new Date(job.finishedOn).toISOString() } : {}) };
}
