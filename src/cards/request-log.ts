// The logger of the request being served, for code that runs on its behalf far from the route
// (the render pool), so its log lines carry the request id like every other line of the request.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from './logger.js';

const current = new AsyncLocalStorage<Logger>();

/** Runs `work` with `log` as the request logger of everything it awaits. */
export function withRequestLog<T>(log: Logger, work: () => Promise<T>): Promise<T> {
  return current.run(log, work);
}

/** The logger of the request being served, or `fallback` outside of one. */
export function requestLog(fallback: Logger): Logger {
  return current.getStore() ?? fallback;
}
