// Work beside a request's own path (the Markdown worker threads, the SVG drawing processes) yields
// the CPU to the main thread, which answers every request, /health included, and to the browser.
// On Linux a thread or process has its own nice value. Mild: a waking main thread gets the CPU
// first, while the background work still gets a fair share next to other processes at normal
// priority. Elsewhere (or without permission) it simply runs at the service's priority.
import os from 'node:os';

const backgroundNiceness = 5;

/** Lowers the priority of thread or process `id` (a kernel thread id, or a pid) by the background niceness. */
export function yieldToRequests(id: number): void {
  try {
    os.setPriority(id, Math.min(19, os.getPriority(id) + backgroundNiceness));
  } catch {
    // Not permitted, or the process has already exited: it keeps the service's priority.
  }
}
