// Process inspection through /proc (Linux), for tests that check Chromium processes: which browser
// a process runs, and whether anything of a browser's process group is still alive.
import assert from 'node:assert/strict';
import fs from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Process group id: Chromium's helpers share the browser's, which is the browser's own pid. */
  pgrp: number;
  state: string;
  cmdline: string;
  /** CPU time used so far (user and system), in seconds. */
  cpuSeconds: number;
}

/** The fields of a /proc stat line after "(comm)", from state on; comm itself may hold spaces or parentheses. */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

export function listProcesses(): ProcessInfo[] {
  const result: ProcessInfo[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(fs.readFileSync(`/proc/${entry}/stat`, 'utf8'));
      const [state, ppid, pgrp] = fields;
      // utime and stime, in clock ticks of 1/100 s (USER_HZ on Linux).
      const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / 100;
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      result.push({ pid: Number(entry), ppid: Number(ppid), pgrp: Number(pgrp), state: state!, cmdline, cpuSeconds });
    } catch {
      // exited while we looked
    }
  }
  return result;
}

/** Live (not zombie) processes in the process group of each given browser pid. */
export function processesInGroups(groups: Iterable<number>): ProcessInfo[] {
  const wanted = new Set(groups);
  return listProcesses().filter((p) => wanted.has(p.pgrp) && p.state !== 'Z');
}

/** Browser processes (not helpers) that are children of `parent`, found by their command line. */
export function browserChildrenOf(parent: number): ProcessInfo[] {
  return listProcesses().filter((p) => p.ppid === parent && p.cmdline.includes('--cardwright-browser=') && p.state !== 'Z');
}

/** Polls `condition` every 50 ms until it holds or `timeoutMs` passes; returns whether it held. */
export async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Stops a process (SIGSTOP) and waits until /proc shows it stopped, or gone (killed for being
 * stopped): a signal is delivered when the process is next scheduled, which on a loaded machine
 * can be a while after kill() returned.
 */
export async function stopProcess(pid: number): Promise<void> {
  process.kill(pid, 'SIGSTOP');
  const state = () => listProcesses().find((p) => p.pid === pid)?.state;
  const stopped = await eventually(() => ['T', 'Z', undefined].includes(state()), 5_000);
  assert.ok(stopped, `process ${pid} did not stop`);
}

/** The nice value of every thread of every live process in `group`, with the thread's name. */
export function threadNiceValues(group: number): Array<{ pid: number; thread: string; nice: number }> {
  const threads: Array<{ pid: number; thread: string; nice: number }> = [];
  for (const { pid } of processesInGroups([group])) {
    let tasks: string[] = [];
    try {
      tasks = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // exited while we looked
    }
    for (const task of tasks) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
        // State is field 3 of stat(5), nice field 19.
        const nice = Number(statFields(stat)[16]);
        threads.push({ pid, thread: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), nice });
      } catch {
        // exited while we looked
      }
    }
  }
  return threads;
}
