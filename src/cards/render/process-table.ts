// What Linux's /proc says about the browser's processes: which are in its process group, whether
// each is running or stopped, and how much CPU each has used. The browser's supervision reads it
// (browser-instance.ts), and so does the check that tells a busy renderer from a frozen one
// (drawing-progress.ts). Where there is no /proc (off Linux) every question has the empty answer,
// and what relies on it does what it did without it.
import fs from 'node:fs';

/** One process as /proc/PID/stat describes it. */
export interface ProcessStat {
  pid: number;
  /** R running, S sleeping, D waiting on the disk, T stopped (SIGSTOP), t traced, Z zombie, … */
  state: string;
  /** Process group id; Chromium's helpers share the browser's, which is the browser's own pid. */
  group: number;
  /** CPU time used so far, user and system, in clock ticks (USER_HZ, 1/100 s on Linux). */
  cpuTicks: number;
}

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on every Linux platform Node runs on). */
export const ticksPerSecond = 100;

/** The ids of the processes in /proc; none where there is no /proc. */
function processIds(): number[] {
  try {
    return fs
      .readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number);
  } catch {
    return [];
  }
}

/** One file of a process in /proc, or undefined when it exited while we looked (or there is no /proc). */
function procFile(pid: number, name: 'stat'): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/${name}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** What /proc/PID/stat says of `pid`; undefined when it is gone (or there is no /proc). */
export function processStat(pid: number): ProcessStat | undefined {
  const stat = procFile(pid, 'stat');
  if (stat === undefined) return undefined;
  // "pid (name) state ppid pgrp … utime stime …": the name may hold spaces and parentheses, so the
  // fields are read after the last ")"; utime and stime are the 14th and 15th fields of the line.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid, state: fields[0] ?? '?', group: Number(fields[2]), cpuTicks: Number(fields[11]) + Number(fields[12]) };
}

/** True when the process is stopped (SIGSTOP, or a debugger holds it): it runs nothing until continued. */
export const isStopped = (stat: ProcessStat): boolean => stat.state === 'T' || stat.state === 't';

/** The live (not zombie) processes of process group `groupId`. */
export function processGroup(groupId: number): ProcessStat[] {
  return processIds()
    .map((pid) => processStat(pid))
    .filter((stat): stat is ProcessStat => stat !== undefined && stat.group === groupId && stat.state !== 'Z');
}

