/** What the router tells an observer (logs, metrics): finished requests and store calls. */
import type { RequestLogEntry } from '../stores/types';

/** Receives the router's events; every method is optional and must not throw (what it throws is ignored). */
export interface GatewayObserver {
  /** A request is over and settled: its final log entry, as it is written to the store. */
  requestFinished?(entry: RequestLogEntry): void;
  /** An asynchronous store call ended after `ms`, or any store call failed (`error`: a write that will be retried, a refused lookup). */
  storeCall?(operation: string, ms: number, error?: unknown): void;
  /** A write the store kept refusing was set aside. */
  writeSetAside?(kind: string, requestId: string, error: unknown): void;
  /** A request was admitted without the limits (`rpm`, `concurrency`, `tpm`) whose backend failed (limits.failOpen). */
  limitsFailedOpen?(limits: readonly string[], error: unknown): void;
}

/** One observer that tells each of `observers` in turn; undefined when there are none. */
export function combineObservers(observers: ReadonlyArray<GatewayObserver | undefined>): GatewayObserver | undefined {
  const list = observers.filter((o): o is GatewayObserver => o !== undefined);
  if (list.length === 0) return undefined;
  if (list.length === 1) return list[0];
  const each = (call: (o: GatewayObserver) => void): void => {
    for (const o of list) {
      try {
        call(o);
      } catch {
        // an observer that throws changes nothing
      }
    }
  };
  return {
    requestFinished: (entry) => each((o) => o.requestFinished?.(entry)),
    storeCall: (operation, ms, error) => each((o) => o.storeCall?.(operation, ms, error)),
    writeSetAside: (kind, requestId, error) => each((o) => o.writeSetAside?.(kind, requestId, error)),
    limitsFailedOpen: (limits, error) => each((o) => o.limitsFailedOpen?.(limits, error)),
  };
}
