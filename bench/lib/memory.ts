// Memory of a process and all its descendants (the service and its Chromium), from /proc.
// PSS (proportional set size) is the honest figure: shared pages are split between processes
// instead of being counted once per process as RSS does.
import fs from 'node:fs';

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) children.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return children;
}

export function processTree(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...childrenOf(all[i]!));
  return all;
}

/** Sum of PSS over the process tree, in MB. */
export function treePssMb(pid: number): number {
  let kb = 0;
  for (const member of processTree(pid)) {
    try {
      const rollup = fs.readFileSync(`/proc/${member}/smaps_rollup`, 'utf8');
      kb += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb / 1024;
}

/**
 * CPU time (user + system, in seconds) the process itself and its descendants (Chromium) have
 * used so far, from /proc: it moves with the machine's load much less than wall time does.
 * The process's own figure counts all its threads (the Markdown workers too).
 */
export function treeCpuSeconds(pid: number): { service: number; descendants: number } {
  const ticksPerSecond = 100; // USER_HZ, 100 on every Linux build
  const cpuOf = (member: number) => {
    try {
      const stat = fs.readFileSync(`/proc/${member}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime, stime, and cutime, cstime of children already waited for.
      return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / ticksPerSecond;
    } catch {
      return 0; // gone
    }
  };
  const [self, ...descendants] = processTree(pid);
  return { service: cpuOf(self!), descendants: descendants.reduce((sum, member) => sum + cpuOf(member), 0) };
}

/** What a process of the tree is: the service itself, or which kind of Chromium process. */
function processKind(pid: number, servicePid: number): string {
  if (pid === servicePid) return 'service (Node.js and its Markdown worker threads)';
  // Chromium's helpers rewrite their command line into one space-separated string.
  const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
  const type = args.find((arg) => arg.startsWith('--type='))?.slice('--type='.length);
  const subType = args.find((arg) => arg.startsWith('--utility-sub-type='))?.slice('--utility-sub-type='.length);
  return `Chromium ${type ?? 'browser'}${subType ? ` (${subType.replace(/\.mojom\./, ' ')})` : ''}`;
}

/** PSS of the tree by kind of process, largest first, in MB, with how many processes of each kind. */
export function pssByKind(servicePid: number): Array<{ kind: string; processes: number; pssMb: number }> {
  const kinds = new Map<string, { processes: number; kb: number }>();
  for (const member of processTree(servicePid)) {
    try {
      const kb = Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${member}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
      const kind = processKind(member, servicePid);
      const row = kinds.get(kind) ?? { processes: 0, kb: 0 };
      row.processes++;
      row.kb += kb;
      kinds.set(kind, row);
    } catch {
      // gone
    }
  }
  return [...kinds].map(([kind, row]) => ({ kind, processes: row.processes, pssMb: row.kb / 1024 })).sort((a, b) => b.pssMb - a.pssMb);
}
