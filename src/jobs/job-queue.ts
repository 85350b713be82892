// The one interface the jobs route talks to, with two implementations chosen by configuration:
// local-job-queue.ts (one process, jobs kept as files in DATA_DIR/jobs) and bullmq-job-queue.ts
// (REDIS_URL: each request of a job is worked on by whichever replica is free). Both run requests
// through `run`, record each answer as soon as it exists, and post a finished job's callback through
// `callbacks`, retrying it where the job is kept so that a restart does not lose it.
import type { Job, JobItem, JobResult, JobStatus } from './job.js';

/** Answers one request of a job as POST /api/generate would; never throws. `signal` aborts when the queue closes. */
export type RunJobRequest = (item: JobItem, signal: AbortSignal) => Promise<JobResult>;

export interface JobQueueOptions {
  run: RunJobRequest;
  /** The answer of a request the queue gave up on (its replicas kept dying while running it). */
  gaveUp: (item: Omit<JobItem, 'request'>) => JobResult;
  /** Present when callbacks may be posted (WEBHOOK_SECRET): how, and how often. */
  callbacks?: JobCallbacks;
}

export interface JobCallbacks {
  /** One delivery attempt (counted from 1) of a finished job to its callbackUrl; rejects when it failed. */
  deliver: (job: JobStatus & { callbackUrl: string }, attempt: number) => Promise<void>;
  /** Attempts in all (WEBHOOK_ATTEMPTS). */
  attempts: number;
  /** The wait before the second attempt (WEBHOOK_RETRY_MS); each later one doubles. */
  retryMs: number;
}

/** The wait after failed attempt number `attemptsMade`: retryMs, then doubling. */
export const callbackRetryDelayMs = (callbacks: JobCallbacks, attemptsMade: number): number => callbacks.retryMs * 2 ** (attemptsMade - 1);

export interface JobQueue {
  /** Starts working on jobs (the ones left unfinished by a previous run too); called once the service is ready. */
  start(): void;
  /** Stores the job and queues it; resolves once it is stored. */
  add(job: Job): Promise<void>;
  /** The job as it stands, or undefined for an unknown or expired id. */
  get(id: string): Promise<JobStatus | undefined>;
  /** Stops taking up jobs; a job under way is left to be taken up again (by the next start, or another replica). */
  close(): Promise<void>;
}
