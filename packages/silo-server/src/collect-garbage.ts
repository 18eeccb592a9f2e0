/**
 * A full garbage collection, for koa-silo's memory budget (its `collectGarbage` option): after
 * large parsed data is given back, its garbage is collected at once instead of when V8's heap
 * limit (a quarter to a half of the machine's memory) comes near, so RSS stays near the budget.
 * Node exposes `gc` only with --expose-gc: it is taken from a new context with that flag set for a
 * moment, as Jest does to detect leaks.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

let gc: (() => void) | undefined;

export function collectGarbage(): void {
  gc ??= exposedGc();
  gc();
}

function exposedGc(): () => void {
  const global = (globalThis as { gc?: () => void }).gc;
  if (typeof global === 'function') return global;
  v8.setFlagsFromString('--expose-gc');
  try {
    return vm.runInNewContext('gc') as () => void;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}
