// The job queue of a single process (no REDIS_URL): jobs are JSON files in DATA_DIR/jobs, written
// after every answered request, so a restart loses nothing: on start, queued and running jobs are
// taken up again and only their unanswered requests are run. A small number of jobs (JOBS_CONCURRENCY,
// default 1) run at once, each one request at a time, so a batch never holds more than that many of
// the render pages interactive requests use. Finished jobs are deleted JOBS_TTL_SECONDS after they end.
// A finished job's callback is posted beside the queue, never holding it up; the attempts made are
// kept in the job's file until it is delivered, so a restart goes on posting it.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../cards/logger.js';
import { isFinished, finalState, type Job } from './job.js';
import { callbackRetryDelayMs, type JobQueue, type JobQueueOptions } from './job-queue.js';

export interface LocalJobQueueOptions extends JobQueueOptions {
  dataDir: string;
  concurrency: number;
  ttlMs: number;
  log: Logger;
}

/** Ids are base64url (newJobId); anything else is never a file name of ours. */
const jobIdPattern = /^[A-Za-z0-9_-]{16,64}$/;

export class LocalJobQueue implements JobQueue {
  private readonly dir: string;
  private readonly waiting: string[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly posting = new Set<Promise<void>>();
  private readonly stop = new AbortController();
  private readonly sweepTimer: NodeJS.Timeout;
  private started = false;

  constructor(private readonly options: LocalJobQueueOptions) {
    this.dir = path.join(options.dataDir, 'jobs');
    fs.mkdirSync(this.dir, { recursive: true });
    // Expired jobs are swept now and then; an expired job is also treated as gone when it is read.
    this.sweepTimer = setInterval(() => this.sweepExpired(), Math.min(options.ttlMs, 10 * 60_000));
    this.sweepTimer.unref();
  }

  start(): void {
    this.started = true;
    this.takeUpUnfinished();
  }

  async add(job: Job): Promise<void> {
    this.save(job);
    this.waiting.push(job.id);
    this.pump();
  }

  async get(id: string): Promise<Job | undefined> {
    const job = this.read(id);
    return job && !this.expired(job) ? job : undefined;
  }

  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    this.stop.abort(new DOMException('the service is stopping', 'AbortError'));
    // An attempt under way ends (within its 10 s) and is counted in the job's file; no wait follows it.
    await Promise.allSettled([...this.running, ...this.posting]);
  }

  /** After a restart: the jobs that had not ended, oldest first, as if just added. */
  private takeUpUnfinished(): void {
    const unfinished = this.allJobs().filter((job) => !isFinished(job));
    unfinished.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    this.waiting.push(...unfinished.map((job) => job.id).filter((id) => !this.waiting.includes(id)));
    if (unfinished.length > 0) this.options.log.info({ jobs: unfinished.length }, 'taking up the jobs that had not finished');
    for (const job of this.allJobs()) if (isFinished(job) && job.callbackAttempts !== undefined) this.startPosting(job);
    this.sweepExpired();
    this.pump();
  }

  private pump(): void {
    while (this.started && this.running.size < this.options.concurrency && this.waiting.length > 0 && !this.stop.signal.aborted) {
      const id = this.waiting.shift()!;
      const work = this.work(id).catch((error: unknown) => this.options.log.error({ err: error, job: id }, 'a job could not be run'));
      this.running.add(work);
      void work.finally(() => {
        this.running.delete(work);
        this.pump();
      });
    }
  }

  private async work(id: string): Promise<void> {
    const job = this.read(id);
    if (!job || isFinished(job)) return;
    job.state = 'running';
    this.save(job);
    for (let index = 0; index < job.requests.length; index++) {
      if (job.results[index]) continue;
      const result = await this.options.run({ jobId: job.id, owner: job.owner, index, request: job.requests[index] }, this.stop.signal);
      // Stopped mid-request: that request is run again when the job is taken up.
      if (this.stop.signal.aborted) return;
      job.results[index] = result;
      this.save(job);
    }
    job.state = finalState(job.results);
    job.finishedAt = new Date().toISOString();
    if (job.callbackUrl && this.options.callbacks) job.callbackAttempts = 0;
    this.save(job);
    this.startPosting(job);
  }

  private startPosting(job: Job): void {
    const posting = this.postCallback(job).catch((error: unknown) => this.options.log.error({ err: error, job: job.id }, 'a job callback could not be posted'));
    this.posting.add(posting);
    void posting.finally(() => this.posting.delete(posting));
  }

  /** Posts a finished job to its callbackUrl until it is delivered or out of attempts, counting them in its file. */
  private async postCallback(job: Job): Promise<void> {
    const { callbacks } = this.options;
    const url = job.callbackUrl;
    if (!callbacks || !url) return;
    while (job.callbackAttempts !== undefined && !this.stop.signal.aborted) {
      const attempt = job.callbackAttempts + 1;
      const delivered = await callbacks.deliver({ ...job, callbackUrl: url }, attempt).then(
        () => true,
        () => false,
      );
      job.callbackAttempts = delivered || attempt >= callbacks.attempts ? undefined : attempt;
      this.save(job);
      if (job.callbackAttempts !== undefined) await sleep(callbackRetryDelayMs(callbacks, attempt), undefined, { signal: this.stop.signal }).catch(() => undefined);
    }
  }

  private file(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  private read(id: string): Job | undefined {
    if (!jobIdPattern.test(id)) return undefined;
    try {
      return JSON.parse(fs.readFileSync(this.file(id), 'utf8')) as Job;
    } catch {
      return undefined;
    }
  }

  /** Written to a temporary file and renamed: a crash mid-write leaves the previous state, never half a file. */
  private save(job: Job): void {
    const temporary = `${this.file(job.id)}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, JSON.stringify(job));
    fs.renameSync(temporary, this.file(job.id));
  }

  private expired(job: Job): boolean {
    return job.finishedAt !== undefined && Date.parse(job.finishedAt) + this.options.ttlMs < Date.now();
  }

  private allJobs(): Job[] {
    const names = fs.readdirSync(this.dir).filter((name) => name.endsWith('.json'));
    return names.flatMap((name) => this.read(name.slice(0, -'.json'.length)) ?? []);
  }

  private sweepExpired(): void {
    for (const job of this.allJobs()) {
      if (this.expired(job)) fs.rmSync(this.file(job.id), { force: true });
    }
  }
}
