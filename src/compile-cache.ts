// Node 22.1 and later can keep the code it compiles from the service's and its dependencies'
// modules on disk and reuse it on the next start (module.enableCompileCache): a start of the
// service on Node 24 then takes 0.2-0.5 s less CPU until ready, about a tenth
// (docs/performance.md#start-up). On Node 20 it does nothing. Node's own variables still decide:
// NODE_COMPILE_CACHE names the folder (by default node-compile-cache in the temporary folder),
// NODE_DISABLE_COMPILE_CACHE=1 turns it off. Modules compiled before the call are not cached, so
// entry points call it first and import the rest afterwards.
import module from 'node:module';

type EnableCompileCache = (directory?: string) => { status: number; directory?: string };

export function enableCompileCache(): void {
  // Node 20's type declarations do not have it.
  const enabled = (module as { enableCompileCache?: EnableCompileCache }).enableCompileCache?.();
  // Worker threads (the Markdown workers) and child processes (SVG drawing) do not share the
  // call, but they read the variable when they start, as Node itself does.
  if (enabled?.directory) process.env.NODE_COMPILE_CACHE ??= enabled.directory;
}
