// `npm test` and `npm run test:unit`: runs the test files in lanes (test/lanes.mjs) so the suite
// fits a 2-core machine in minutes instead of running 60 files one after the other:
//
// - each group of `sharedServiceGroups` runs in one process (test/helpers/one-process.ts), whose
//   files share one warm service with the default settings instead of each starting and warming
//   its own;
// - the files in `runAlone` (timing- and process-sensitive ones) run one at a time at the normal
//   priority, from the start;
// - every other file (or shared group) runs in a process of its own, two at a time, from the
//   start too but at the idle priority (SCHED_IDLE): in the CPU the former leave idle, so they
//   keep the machine as if alone and the suite is as long as its CPU, not as its two phases; the
//   files of `afterAlone` (a few seconds' waits on the wall clock) start once those are done.
//
// With --checks (`npm test`), the type check and the linters run from the start at the idle
// priority, in whatever CPU the build and the test files leave, instead of before them; a check
// that fails fails the run.
//
// dist/ is built once, before any file starts (the CLI and cluster tests run the built service),
// and the TypeScript of src/ and test/ is compiled once into .test-build/ (compile-tests.mjs): the
// processes run JavaScript, not each its own tsx.
// Each file's output is printed whole when it ends, then every file's time, slowest first, and the
// totals. `node scripts/run-tests.mjs test/a.test.ts …` runs just those files, in the same lanes.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAlone, runAlone, sharedServiceGroups, startFirst, unitFiles } from '../test/lanes.mjs';
import { compileTests, compiledRoot } from './compile-tests.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const startedAt = Date.now();
/** For each test process (by pid), the CPU seconds of it and its descendants, as last seen: a process's time only grows. */
const cpuSeenByTree = new Map();
/** The test process (its pid) that each process seen descends from. */
const jobOfProcess = new Map();
/** The test processes (by pid) started at the idle priority, and the processes of theirs whose session is lowered. */
const idleJobs = new Set();
const lowered = new Set();
/** Each test process's CPU, sampled twice a second (sampleTreesCpu). */
const cpuSampling = fs.existsSync('/proc/self/stat') ? setInterval(sampleTreesCpu, 500) : undefined;

/** How long one process may run before it is stopped and counted as failed: a hang must not eat CI's time. */
const processTimeLimitMs = 20 * 60_000;
const parallelProcesses = 2;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** The totals the spec reporter closes with ("ℹ pass 12"). */
const countNames = ['tests', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];

const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const withChecks = args.includes('--checks');
/**
 * How every file but those that run alone is started: under SCHED_IDLE (chrt(1), util-linux),
 * which runs a process only on a CPU nothing else wants, so the files that run alone keep the
 * machine as if alone. At nice 10 instead they still took about a tenth of a busy core, and the
 * cluster test they ran beside took 63 s instead of 44. Without chrt, nice 19.
 */
const idlePriority = fs.existsSync('/usr/bin/chrt') ? ['/usr/bin/chrt', '--idle', '0'] : ['nice', '-n', '19'];
/** A job's program and arguments, started at the idle priority rather than changed after the start: every thread the process ever makes inherits it. */
const atIdlePriority = (program, args) => ({ idle: true, program: idlePriority[0], command: [...idlePriority.slice(1), program, ...args] });
const named = args.filter((arg) => !arg.startsWith('--'));
const allFiles = fs
  .readdirSync(path.join(root, 'test'))
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => `test/${name}`)
  .sort();
const sharing = sharedServiceGroups.flat();
for (const listed of [...runAlone, ...afterAlone, ...sharing, ...unitFiles, ...startFirst]) {
  if (!allFiles.includes(listed)) fail(`test/lanes.mjs names ${listed}, which does not exist`);
}
const files = named.length > 0 ? named.map((file) => path.relative(root, path.resolve(file))) : unitOnly ? unitFiles : allFiles;

const results = [];
// Started first and not waited for, at the idle priority: they read the sources only, and measure
// nothing, so they take whatever CPU the build and the test files leave (a core beside a stale
// build's compiler, a third of the machine beside the files that run alone) and never the CPU a
// test file would have used.
const checking = Promise.all(
  (withChecks ? ['typecheck', 'lint'] : []).map((script) =>
    runJob({ name: `npm run ${script}`, files: [], check: true, ...atIdlePriority(npm, ['run', script]) }),
  ),
).then((checks) => results.push(...checks));
if (!unitOnly) {
  // Built once here, so no test file builds it again (and two never build it at the same time).
  const status = await new Promise((resolve) => spawn(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: root, stdio: 'inherit' }).on('close', resolve));
  if (status !== 0) fail('the build failed');
}
// The sources and tests compiled once to JavaScript, instead of through tsx in every process.
await compileTests();
/** A test file's compiled module (`test/a.test.ts` → `.test-build/test/a.test.js`). */
const compiled = (file) => path.relative(root, path.join(compiledRoot, file.replace(/\.ts$/, '.js')));
// The processes run without --enable-source-maps: with it, every stack trace is mapped in
// JavaScript, and the web page's tests drive their browser with Playwright, which takes one for
// each protocol call (about 5% of a shared process's CPU).
// Failures name the lines of the compiled mirror (.test-build/test/a.test.js, readable JavaScript
// close to the TypeScript); `node --import tsx --test test/a.test.ts` names the TypeScript lines.

/** A process to run: one or several test files. */
const jobs = [];
for (const group of sharedServiceGroups) {
  const shared = files.filter((file) => group.includes(file));
  if (shared.length > 0) jobs.push({ files: shared, lane: 'idle', ...atIdlePriority(process.execPath, ['--test-reporter=spec', compiled('test/helpers/one-process.ts'), ...shared]) });
}
// The slow files first (after the shared processes, the longest of all), then the rest in name order.
const rank = (file) => (startFirst.includes(file) ? startFirst.indexOf(file) : startFirst.length);
const ownProcess = files.filter((candidate) => !sharing.includes(candidate)).sort((a, b) => rank(a) - rank(b));
for (const file of ownProcess) {
  const command = ['--test', '--test-reporter=spec', compiled(file)];
  // The unit lane has no files that run alone: its files all run in the idle-priority lane.
  if (!unitOnly && runAlone.includes(file)) jobs.push({ files: [file], lane: 'alone', command });
  else jobs.push({ files: [file], lane: 'idle', afterAlone: afterAlone.includes(file), ...atIdlePriority(process.execPath, command) });
}

// The files that run alone, one at a time at the normal priority, and from the same moment all the
// others, two at a time at the idle priority: these use only the CPU the former leave (a third to
// a half of the machine), and the whole machine once they are done.
let aloneDone;
const alone = new Promise((resolve) => (aloneDone = resolve));
await Promise.all([
  runInLanes(jobs.filter((job) => job.lane === 'alone'), 1).then(aloneDone),
  runInLanes(jobs.filter((job) => job.lane === 'idle'), parallelProcesses, alone),
]);
await checking;
clearInterval(cpuSampling);
summarize();

/**
 * Runs the jobs in `lanes` processes at a time, in order, except that a job marked `afterAlone`
 * starts only once `alone` (the files that run alone) has settled; meanwhile the lane takes the
 * next job that may start.
 */
async function runInLanes(queue, lanes, alone = Promise.resolve()) {
  const waiting = [...queue];
  let aloneSettled = false;
  alone.then(() => (aloneSettled = true));
  const next = () => {
    const index = waiting.findIndex((job) => aloneSettled || !job.afterAlone);
    return index < 0 ? undefined : waiting.splice(index, 1)[0];
  };
  const lane = async () => {
    while (waiting.length > 0) {
      const job = next();
      if (job) results.push(await runJob(job));
      else await alone;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

function runJob(job) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(job.program ?? process.execPath, job.command, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    cpuSeenByTree.set(child.pid, new Map());
    jobOfProcess.set(child.pid, child.pid);
    if (job.idle) {
      idleJobs.add(child.pid);
      // At once, rather than at the next sampling: the session is the test process's own.
      lowerIdleSessions([child.pid]);
    }
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, processTimeLimitMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Whatever a file left running (a server, a browser) goes with it.
      killGroup(child);
      const seconds = (Date.now() - started) / 1000;
      const cpuSeconds = treeCpuSeconds(child.pid);
      forgetJob(child.pid);
      const counts = countsOf(output);
      const problem = timedOut
        ? `stopped after ${processTimeLimitMs / 60_000} minutes`
        : job.check
          ? code === 0
            ? undefined
            : `failed (${signal ?? `code ${code}`})`
          : counts === undefined
          ? `ended (${signal ?? `code ${code}`}) without a summary of its tests`
          : code !== 0 && counts.fail === 0
            ? `ended with code ${code} although no test failed`
            : undefined;
      const name = job.name ?? (job.files.length === 1 ? job.files[0] : `${job.files.length} files in one process`);
      process.stdout.write(`\n━━━ ${name} (${seconds.toFixed(1)} s, ${cpuSeconds.toFixed(1)} CPU-s)\n${output}`);
      if (problem) process.stdout.write(`✖ ${name} ${problem}\n`);
      resolve({ job, seconds, cpuSeconds, counts: counts ?? emptyCounts(), problem, perFile: perFileTimes(job, output, seconds, cpuSeconds) });
    });
  });
}

/**
 * Reads the CPU time of every test process and of each process it started, at any depth (Chromium
 * starts its processes in a session of their own, so the tree is followed, not the process group).
 * Sampled, because Chromium's renderers are not reaped by the test process, so its children's
 * counters miss them; a process counts for what it had used when last seen.
 */
function sampleTreesCpu() {
  const seen = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // ppid is field 4 of proc(5), utime and stime 14 and 15, in 1/100 s.
      seen.push({ pid: Number(entry), ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / 100 });
    } catch {
      // ended meanwhile
    }
  }
  // Parents have lower pids than their children, but pids wrap: repeat until nothing new is found.
  for (let found = true; found; ) {
    found = false;
    for (const { pid, ppid } of seen) {
      if (jobOfProcess.has(pid)) continue;
      const job = cpuSeenByTree.has(pid) ? pid : jobOfProcess.get(ppid);
      if (job !== undefined) {
        jobOfProcess.set(pid, job);
        found = true;
      }
    }
  }
  for (const { pid, cpu } of seen) cpuSeenByTree.get(jobOfProcess.get(pid))?.set(pid, cpu);
  lowerIdleSessions(seen.map(({ pid }) => pid));
}

/**
 * Gives the session of every process of an idle-priority test process the lowest weight. With
 * autogroups (Linux's default on desktops and these virtual machines), the scheduler first shares
 * the CPU between sessions, at equal weight whatever the policy of the threads inside: each test
 * process leads a session of its own, and Chromium starts its processes in another. At SCHED_IDLE
 * in sessions of normal weight, two test processes still took two thirds of the machine from the
 * files that run alone (cluster 51 -> 89 s). A session's nice value (/proc/PID/autogroup), raised
 * to 19, gives it the weight of nice 19: its processes then run in the CPU the others leave.
 */
function lowerIdleSessions(pids) {
  for (const pid of pids) {
    if (lowered.has(pid) || !idleJobs.has(jobOfProcess.get(pid))) continue;
    lowered.add(pid);
    try {
      fs.writeFileSync(`/proc/${pid}/autogroup`, '19');
    } catch {
      // no autogroups in this kernel, or the process ended meanwhile
    }
  }
}

/** The CPU seconds of a test process and its descendants seen so far, or NaN without /proc. */
function treeCpuSeconds(group) {
  if (!cpuSampling) return Number.NaN;
  sampleTreesCpu();
  let total = 0;
  for (const seconds of cpuSeenByTree.get(group)?.values() ?? []) total += seconds;
  return total;
}

/** Forgets an ended test process and its descendants, whose pids the system may give out again. */
function forgetJob(group) {
  cpuSeenByTree.delete(group);
  idleJobs.delete(group);
  for (const [pid, job] of jobOfProcess) {
    if (job !== group) continue;
    jobOfProcess.delete(pid);
    lowered.delete(pid);
  }
}

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function emptyCounts() {
  return Object.fromEntries(countNames.map((name) => [name, 0]));
}

/** The totals of the spec reporter's closing lines ("ℹ pass 12"), or undefined when it printed none. */
function countsOf(output) {
  const counts = emptyCounts();
  let found = false;
  for (const name of countNames) {
    for (const match of output.matchAll(new RegExp(`^ℹ ${name} (\\d+)$`, 'gm'))) {
      counts[name] += Number(match[1]);
      found = true;
    }
  }
  return found ? counts : undefined;
}

/** Seconds per test file; in the shared process each file is a top-level suite named after it. */
function perFileTimes(job, output, seconds, cpuSeconds) {
  if (job.files.length === 1) return [{ file: job.files[0], seconds, cpuSeconds }];
  return job.files.map((file) => {
    const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const match = output.match(new RegExp(`^[✔✖] ${escaped} \\(([\\d.]+)ms\\)$`, 'm'));
    return { file, seconds: match ? Number(match[1]) / 1000 : Number.NaN, shared: true };
  });
}

function summarize() {
  const totals = emptyCounts();
  for (const { counts } of results) for (const name of countNames) totals[name] += counts[name];
  const problems = results.filter((result) => result.problem);
  const perFile = results.flatMap((result) => result.perFile).sort((a, b) => (b.seconds || 0) - (a.seconds || 0));
  const sharedProcesses = results.filter((result) => result.job.files.length > 1);
  console.log('\nTest files by time, slowest first, with the CPU time of their process and what it started (* = in a process that shares one service):');
  for (const { file, seconds, cpuSeconds, shared: inShared } of perFile) {
    const cpu = cpuSeconds === undefined ? '' : `${cpuSeconds.toFixed(1).padStart(7)} CPU-s`;
    console.log(`${seconds.toFixed(1).padStart(8)} s ${cpu.padEnd(13)} ${inShared ? '*' : ' '} ${file}`);
  }
  for (const check of results.filter((result) => result.job.check)) console.log(`${check.job.name} took ${check.seconds.toFixed(1)} s (${check.cpuSeconds.toFixed(1)} CPU-s) at the idle priority, in the CPU the test files left.`);
  for (const shared of sharedProcesses) console.log(`A shared process took ${shared.seconds.toFixed(1)} s (${shared.cpuSeconds.toFixed(1)} CPU-s) for ${shared.job.files.length} files, start and close included.`);
  console.log(`\n${results.length} processes, ${files.length} files, ${((Date.now() - startedAt) / 1000).toFixed(1)} s in all`);
  // .ci/run sets this, so its log says what the whole run took, the install included.
  const ciStartedAt = Number(process.env.CARDWRIGHT_CI_STARTED_AT);
  if (ciStartedAt > 0) console.log(`.ci/run has taken ${Math.round(Date.now() / 1000 - ciStartedAt)} s so far (install, type-check and lint included)`);
  for (const name of countNames) console.log(`ℹ ${name} ${totals[name]}`);
  for (const { job, problem } of problems) console.log(`✖ ${job.name ?? job.files.join(', ')}: ${problem}`);
  const failed = totals.fail + totals.cancelled + problems.length;
  console.log(`${totals.pass} passed, ${failed} failed, ${totals.skipped} skipped`);
  process.exitCode = failed > 0 ? 1 : 0;
}

function fail(message) {
  console.error(`run-tests: ${message}`);
  process.exit(1);
}
