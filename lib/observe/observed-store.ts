/** A store whose calls are reported to an observer; it answers exactly as the store it wraps (sync stays sync). */
import type { GatewayStore } from '../stores/types';
import { isThenable } from '../foundation/sync';
import type { GatewayObserver } from './observer';

/** `store` with each GatewayStore method reported to `observer.storeCall`: asynchronous calls with their time, failures always. */
export function observedStore(store: GatewayStore, observer: GatewayObserver): GatewayStore {
  const report = observer.storeCall?.bind(observer);
  if (!report) return store;
  const timed = <A extends unknown[], R>(operation: string, call: (...args: A) => R) => (...args: A): R => {
    const started = performance.now();
    let out: R;
    try {
      out = call(...args);
    } catch (err) {
      report(operation, performance.now() - started, err);
      throw err;
    }
    // An answer in the same call (MemoryStore) waited on nothing: only asynchronous calls have a latency worth a histogram.
    if (!isThenable(out)) return out;
    return Promise.resolve(out).then(
      (value: unknown) => { report(operation, performance.now() - started); return value; },
      (err: unknown) => { report(operation, performance.now() - started, err); throw err; },
    ) as R;
  };
  return {
    findCaller: timed('findCaller', (hash: string) => store.findCaller(hash)),
    reserve: timed('reserve', (request: Parameters<GatewayStore['reserve']>[0]) => store.reserve(request)),
    renewHolds: timed('renewHolds', (instanceId: string, expiresAt: number) => store.renewHolds(instanceId, expiresAt)),
    settle: timed('settle', (settlement: Parameters<GatewayStore['settle']>[0]) => store.settle(settlement)),
    release: timed('release', (requestId: string) => store.release(requestId)),
    appendLog: timed('appendLog', (entry: Parameters<GatewayStore['appendLog']>[0]) => store.appendLog(entry)),
  };
}
