// Chromium raises some of its own threads above normal priority when it is allowed to (the
// browser's UI and IO threads, the compositors and the GPU process's main thread go to nice -8),
// which on Linux means when it runs with CAP_SYS_NICE, as root does. Those threads then win the CPU
// from the service's main thread, which answers every request and /health: under a stream of large
// Mermaid diagrams, /health waited up to 113 ms while the main thread had work for 3–40 ms of it.
//
// So a service that holds CAP_SYS_NICE starts Chromium through setpriv without it: Chromium's
// threads keep the service's own priority. An unprivileged service (the Docker image's user) needs
// nothing, since Chromium cannot raise its threads there anyway.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const setprivPath = '/usr/bin/setpriv';
/** Capability numbers (linux/capability.h). */
const capSetpcap = 8;
const capSysNice = 23;
/** Names the binary the wrapper runs, so the wrapper's text never changes. */
const executableVariable = 'CARDWRIGHT_CHROMIUM_EXECUTABLE';
const wrapperText = `#!/bin/sh
# Written by cardwright: runs Chromium without the right to raise its threads' priority.
exec ${setprivPath} --inh-caps=-sys_nice --bounding-set=-sys_nice -- "$${executableVariable}" "$@"
`;

/** How to launch Chromium at `executablePath`: the path to start, and the environment to give it. */
export interface ChromiumLaunch {
  path: string;
  env?: NodeJS.ProcessEnv;
}

export function launchAtServicePriority(executablePath: string): ChromiumLaunch {
  if (!mayRaisePriority() || !fs.existsSync(setprivPath)) return { path: executablePath };
  const wrapper = writeWrapper();
  // A temporary directory mounted noexec cannot run it: Chromium then starts as it would anyway.
  if (!executable(wrapper)) return { path: executablePath };
  return { path: wrapper, env: { ...process.env, [executableVariable]: executablePath } };
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * True when this process holds CAP_SYS_NICE (so Chromium would too) and CAP_SETPCAP (so setpriv
 * may take it away). Read from /proc; false where there is none.
 */
function mayRaisePriority(): boolean {
  let status: string;
  try {
    status = fs.readFileSync('/proc/self/status', 'utf8');
  } catch {
    return false;
  }
  const effective = status.match(/^CapEff:\s*([0-9a-f]+)$/m);
  if (!effective) return false;
  const capabilities = BigInt(`0x${effective[1]}`);
  const holds = (capability: number) => (capabilities & (1n << BigInt(capability))) !== 0n;
  return holds(capSysNice) && holds(capSetpcap);
}

/** The wrapper script in the temporary directory, written once (atomically: services may share it). */
function writeWrapper(): string {
  const wrapper = path.join(os.tmpdir(), 'cardwright-chromium-at-service-priority.sh');
  const current = fs.existsSync(wrapper) ? fs.readFileSync(wrapper, 'utf8') : undefined;
  if (current !== wrapperText) {
    const draft = `${wrapper}.${process.pid}`;
    fs.writeFileSync(draft, wrapperText, { mode: 0o755 });
    fs.renameSync(draft, wrapper);
  }
  return wrapper;
}
