// The one interface the jobs route talks to, with two implementations chosen by configuration:
// local-job-queue.ts (one process, jobs kept as files in DATA_DIR/jobs) and bullmq-job-queue.ts
// (REDIS_URL: any replica works on any job). Both run a job's requests one at a time through
// `run`, record each answer as soon as it exists, and call `ended` once per finished job.
import type { Job, JobResult } from './job.js';

/** Answers request `index` of `job` as POST /api/generate would; never throws. `signal` aborts when the queue closes. */
export type RunJobRequest = (job: Job, index: number, signal: AbortSignal) => Promise<JobResult>;

export interface JobQueueOptions {
  run: RunJobRequest;
  /** Called once when a job has ended (done or failed), e.g. to post its callback. */
  ended: (job: Job) => void;
}

export interface JobQueue {
  /** Starts working on jobs (the ones left unfinished by a previous run too); called once the service is ready. */
  start(): void;
  /** Stores the job and queues it; resolves once it is stored. */
  add(job: Job): Promise<void>;
  /** The job as it stands, or undefined for an unknown or expired id. */
  get(id: string): Promise<Job | undefined>;
  /** Stops taking up jobs; a job under way is left to be taken up again (by the next start, or another replica). */
  close(): Promise<void>;
}
