// A full garbage collection on demand, in a test process started without --expose-gc: the flag is set at run time
// and V8's `gc` is taken from a fresh context, where V8 installs it once the flag is on.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

/** Collects all garbage now (a full, synchronous collection), so a memory figure taken next starts from what lives. */
export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
