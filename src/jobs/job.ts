// A job: requests of POST /api/generate run in the background (POST /api/jobs),
// each answered exactly as POST /api/generate would have answered it. The queue that runs jobs
// (job-queue.ts) stores this record as it is; what a client reads of it is jobView().
import { randomBytes } from 'node:crypto';

export type JobState = 'queued' | 'running' | 'done' | 'failed';

/** The most requests one job may hold (docs/api.md#post-apijobs). */
export const maxJobRequests = 200;

/** One request's answer: the status and JSON body POST /api/generate would have sent. */
export interface JobResult {
  status: number;
  body: unknown;
}

/** A result as a client reads it: with the index of the request it answers (a batch on several replicas ends out of order). */
export interface IndexedJobResult extends JobResult {
  index: number;
}

export interface Job {
  /** Random, 128 bits: knowing one job's id tells nothing of another's. */
  id: string;
  /** The id (ApiKeyStore.idOf, never the key itself) of the API key that created it; only that key reads it. */
  owner: string;
  state: JobState;
  /** The request bodies, as sent (each already checked). */
  requests: unknown[];
  /** Each request's answer, null until it has one; a restarted job skips the answered ones. */
  results: (JobResult | null)[];
  callbackUrl?: string;
  /** Without Redis: the attempts made to post the finished job to callbackUrl, while it is not delivered yet. */
  callbackAttempts?: number;
  createdAt: string;
  finishedAt?: string;
}

/** A job as a queue reports it: all but the request bodies (results has one entry per request). */
export type JobStatus = Omit<Job, 'requests'>;

/** One request of a job, as a queue hands it to be run. */
export interface JobItem {
  jobId: string;
  owner: string;
  index: number;
  request: unknown;
}

/** What GET /api/jobs/:id answers and a callback receives. */
export interface JobView {
  id: string;
  state: JobState;
  progress: { done: number; total: number };
  /** The answers so far, in the order of the requests, each with its request's index. */
  results: IndexedJobResult[];
  createdAt: string;
  finishedAt?: string;
}

export const newJobId = (): string => randomBytes(16).toString('base64url');

export function newJob(owner: string, requests: unknown[], callbackUrl?: string): Job {
  return { id: newJobId(), owner, state: 'queued', requests, results: requests.map(() => null), ...(callbackUrl ? { callbackUrl } : {}), createdAt: new Date().toISOString() };
}

/** The state a job ends in once every request has its answer: failed when not one request succeeded. */
export const finalState = (results: (JobResult | null)[]): JobState => (results.some((result) => result && result.status < 400) ? 'done' : 'failed');

export const isFinished = (job: Job): boolean => job.state === 'done' || job.state === 'failed';

export function jobView(job: JobStatus): JobView {
  const results = job.results.flatMap((result, index) => (result ? [{ index, ...result }] : []));
  return {
    id: job.id,
    state: job.state,
    progress: { done: results.length, total: job.results.length },
    results,
    createdAt: job.createdAt,
    ...(job.finishedAt ? { finishedAt: job.finishedAt } : {}),
  };
}
