// Forced garbage collections for tests of time limits: a limit held only weakly (AbortSignal.timeout
// inside AbortSignal.any on Node 20) is lost by a collection and never fires. Turning the flag on at
// run time works for functions compiled afterwards, which is all `gc` needs.
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

/** Collects garbage every `everyMs` until the returned function is called. */
export function keepCollectingGarbage(everyMs = 200): () => void {
  collect();
  const timer = setInterval(collect, everyMs);
  return () => clearInterval(timer);
}
