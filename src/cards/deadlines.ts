// Deadlines and time limits, the one place they are built: a request's deadline (the HTTP routes,
// src/http/request-deadline.ts; the CLI and MCP renderer), the render pool's own limit on a request
// (render/page-pool.ts), and the limits of single steps (an image fetch, a store call, a thumbnail).
//
// They are plain timers owned by whoever set them. AbortSignal.timeout() is held only weakly by its
// timer, and AbortSignal.any() holds its sources only weakly too: on Node 20 a garbage collection
// in between can drop the timeout, and the limit then never fires. A setTimeout keeps its callback,
// and so the controller, alive until it fires or is cleared, so these limits always fire.

export interface TimeLimit {
  /** Aborts when the time is up (reason: a TimeoutError) or when the parent signal aborts (its reason). */
  readonly signal: AbortSignal;
  /** Stops the timer and lets go of the parent; call it when the work is done. */
  clear(): void;
}

/** A signal that aborts after `ms` with a TimeoutError carrying `message`, or earlier with `parent`. */
export function timeLimit(ms: number, message: string, parent?: AbortSignal): TimeLimit {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(message, 'TimeoutError')), ms);
  const followParent = () => controller.abort(parent!.reason);
  const clear = () => {
    clearTimeout(timer);
    parent?.removeEventListener('abort', followParent);
  };
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener('abort', followParent, { once: true });
  controller.signal.addEventListener('abort', clear, { once: true });
  return { signal: controller.signal, clear };
}

/** A signal that aborts with the first of `signals` to abort, holding every one of them strongly. */
export function eitherSignal(...signals: AbortSignal[]): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const listeners = signals.map((source) => {
    const listener = () => controller.abort(source.reason);
    return { source, listener };
  });
  const clear = () => {
    for (const { source, listener } of listeners) source.removeEventListener('abort', listener);
  };
  const already = signals.find((source) => source.aborted);
  if (already) controller.abort(already.reason);
  else for (const { source, listener } of listeners) source.addEventListener('abort', listener, { once: true });
  controller.signal.addEventListener('abort', clear, { once: true });
  return { signal: controller.signal, clear };
}

/**
 * Settles with `promise`, or rejects with the signal's reason as soon as it aborts: the caller
 * stops waiting at once, whatever the work does meanwhile (a rejection it ends with later is
 * handled here, never left unhandled).
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
