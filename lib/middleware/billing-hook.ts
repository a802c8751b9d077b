/** billingHook(): settles every request once on its confirmed usage and writes its request-log entry. */
import { GatewayConfigError } from '../foundation/config-errors';
import type { RequestHandler, Response } from 'express';
import { DurableWriter } from '../billing/durable';
import { decisionOf, logEntryOf, settlementOf } from './billing-records';
import { concludeBy, gatewayContext, type Conclusion, type GatewayContext, type WrapUps } from '../context';
import type { GatewayObserver } from '../observe/observer';
import type { BalanceStore, RequestLogEntry, RequestLogStore, SettleResult, Settlement } from '../stores/types';
import { then } from '../foundation/sync';

/** What the `onSettled` hook receives. */
export interface SettledRecord {
  settlement: Settlement;
  entry: RequestLogEntry;
}

/** Options of billingHook(). */
export interface BillingHookOptions {
  /** Where settlements and log entries go. Required. */
  store: BalanceStore & RequestLogStore;
  /**
   * Observes every settled request (for the host's own invoices). Called after the store
   * write; a hook that throws or is slow never affects the response or the stored record.
   * Default: none.
   */
  onSettled?: (record: SettledRecord) => unknown;
  /** Retrying writer for settle and log. Default: a new DurableWriter. */
  writer?: DurableWriter;
  /** Told of every finished request with its final log entry (logs, metrics). Default: none. */
  observer?: GatewayObserver;
}

/** Status written to the log: the status sent, or 499 when the client left before any answer. */
function finalStatus(res: Response): number {
  return res.headersSent ? res.statusCode : 499;
}

/** The options resolved, with `keep`: the writer's track(), bound once. */
type Resolved = Required<Pick<BillingHookOptions, 'store' | 'writer'>> & BillingHookOptions & { keep: (pending: PromiseLike<unknown>) => void };

/**
 * Decides, settles and logs a request whose upstream call is over. Returns a promise only while
 * a write is still under way: with a synchronous store (MemoryStore) it all happens at once.
 */
function conclude(ctx: GatewayContext, res: Response, options: Resolved, wrapUps: WrapUps): Promise<unknown> | undefined {
  const status = finalStatus(res);
  if (status === 499 && !ctx.detail) ctx.detail = 'client disconnected before the answer';
  const succeeded = status < 400 && ctx.errorCode === undefined && res.writableFinished;
  const billable = !ctx.unbilled && ctx.caller !== undefined && ctx.model !== undefined && (ctx.hold !== undefined || ctx.upstream !== undefined);
  const decision = billable ? decisionOf(ctx, succeeded) : undefined;
  // The stages' wrap-ups (limits corrections, log notes): they need not delay the bill, and one that fails must not stop it.
  wrapUps(options.keep);
  const entry = logEntryOf(ctx, status, decision);
  const requestId = ctx.requestId;
  // Written after the settlement, so a log line always describes money that has moved.
  const log = (): Promise<unknown> | undefined => {
    try {
      options.observer?.requestFinished?.(entry);
    } catch {
      // an observer that throws changes nothing
    }
    return options.writer.run(() => options.store.appendLog(entry), { kind: 'log', requestId, record: entry });
  };
  if (!decision) {
    ctx.settled = true;
    return log();
  }
  const settlement = settlementOf(ctx, decision);
  const notify = (): void => {
    if (options.onSettled) {
      setImmediate(() => {
        Promise.resolve().then(() => options.onSettled?.({ settlement, entry })).catch(() => undefined);
      });
    }
  };
  // The store decides the whole charge (it carries the caller's remainder); the log line takes it from there.
  const charged = (result: SettleResult): void => {
    if (!Number.isSafeInteger(result?.charge)) throw new GatewayConfigError('ERR_MGW_STORE_CONTRACT', 'store.settle() must return { applied, charge } with an integer charge');
    entry.charge = result.charge;
  };
  const write = (): unknown => {
    const out = options.store.settle(settlement);
    return then(out, charged);
  };
  const settled = options.writer.run(write, { kind: 'settle', requestId, record: settlement });
  if (!settled) {
    ctx.settled = true;
    notify();
    return log();
  }
  return settled.then((stored) => {
    ctx.settled = true;
    if (stored) notify();
    else {
      // The hold must not outlive its request: given back (best effort), and the log says so.
      Promise.resolve().then(() => options.store.release(requestId)).catch(() => undefined);
      Object.assign(entry, { charge: 0, billingStatus: 'needs_review', detail: `${entry.detail ?? ''}${entry.detail ? '; ' : ''}settlement set aside: the store refused it` });
    }
    return log();
  });
}

/** conclude(), with anything it throws turned into a rejection (it runs inside a `close` listener). */
function concludeSafely(ctx: GatewayContext, res: Response, options: Resolved, wrapUps: WrapUps): Promise<unknown> | undefined {
  try {
    return conclude(ctx, res, options, wrapUps);
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * Mount right after requestId(), before anything that can refuse the request, so that every
 * request is logged. When the response is over (finished, failed or abandoned) it waits for the
 * upstream call, decides the charge from the confirmed usage only, settles exactly once
 * (releasing the hold), runs the limits corrections, and appends the log entry. Writes are
 * retried until they succeed while the process lives.
 */
export function billingHook(options: BillingHookOptions): RequestHandler {
  const store = options?.store;
  if (!store || typeof store.settle !== 'function' || typeof store.appendLog !== 'function') {
    throw new GatewayConfigError('ERR_MGW_STORE_CONTRACT', 'billingHook: option "store" must implement settle() and appendLog() (e.g. new MemoryStore()).');
  }
  if (options.onSettled !== undefined && typeof options.onSettled !== 'function') {
    throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'billingHook: option "onSettled" must be a function.');
  }
  const writer = options.writer ?? new DurableWriter();
  const resolved: Resolved = Object.freeze({ ...options, store, writer, keep: (pending: PromiseLike<unknown>) => writer.track(pending) });
  // One conclusion for every request, run once it is over (an upstream call still running, a
  // stream draining or a client that left, waited for): settled however that work ended.
  const settle: Conclusion = (ctx, res, wrapUps) => {
    const out = concludeSafely(ctx, res, resolved, wrapUps);
    if (out) resolved.writer.track(out);
  };
  return function billingHookMiddleware(_req, res, next) {
    concludeBy(gatewayContext(res), settle); // a second billingHook() stands aside: settled once only
    next();
  };
}
