/** gracefulShutdown(): tracks requests in flight so the router can stop accepting, drain and end them. */
import { sendJson } from '../wire/send-json';
import type { RequestHandler, Response } from 'express';
import { gatewayContext, onResponseClose, type CloseHook } from '../context';
import { GatewayError } from '../foundation/errors';
import { errorFrame, errorJson } from '../wire/error-wire';

/** The middleware plus `drain()`. */
export type ShutdownGate = RequestHandler & {
  /**
   * Stops accepting (new requests get 529 `overloaded_error`, which the SDKs retry), waits up
   * to `graceMs` for requests in flight, then ends the rest: a stream with an `error` event,
   * a pending JSON answer with 529. Resolves when every response is closed.
   */
  drain(graceMs: number): Promise<void>;
  /** Whether drain() has begun: new requests are refused. */
  readonly closing: boolean;
  /** The responses in flight (for live figures such as open streams). */
  responses(): IterableIterator<Response>;
};

const SHUTTING_DOWN = 'The gateway is shutting down; retry.';

/** Ends a response still open at the end of the grace, in its route's own wire format. */
function end(res: Response): void {
  if (res.writableEnded || res.destroyed) return;
  const ctx = res.locals.gateway;
  const format = ctx?.wireFormat ?? 'anthropic';
  if (ctx) ctx.errorCode = 'overloaded_error';
  if (res.headersSent) {
    // A stream ends in its own grammar (a Responses stream with `response.failed`); another open response with the format's error frame.
    if (ctx?.endStream) ctx.endStream('overloaded_error', SHUTTING_DOWN);
    else res.end(errorFrame(format, 'overloaded_error', SHUTTING_DOWN));
    return;
  }
  res.setHeader('x-should-retry', 'true');
  sendJson(res, errorJson(format, 'overloaded_error', SHUTTING_DOWN, ctx?.requestId), 529);
}

/**
 * Creates the gate; mount it after requestId() and billingHook(). Responses in flight are kept
 * in the slots of an array, reused through a list of free ones, so no per-request container
 * keeps a finished request's objects alive into an older GC generation.
 */
export function gracefulShutdown(): ShutdownGate {
  const slots: Array<Response | undefined> = [];
  const free: number[] = [];
  let open = 0;
  let closing = false;
  let idle: (() => void) | undefined;
  const release: CloseHook = (ctx) => {
    slots[ctx.gateSlot] = undefined;
    free.push(ctx.gateSlot);
    if (--open === 0) idle?.();
  };
  const gate = function gracefulShutdownMiddleware(_req, res, next) {
    const ctx = gatewayContext(res);
    if (ctx.gatedBy) {
      next(); // another gate (or this one, met again) counts this request: once only
      return;
    }
    if (closing) {
      next(new GatewayError('overloaded_error', SHUTTING_DOWN));
      return;
    }
    ctx.gatedBy = gate;
    ctx.gateSlot = free.pop() ?? slots.length;
    slots[ctx.gateSlot] = res;
    open++;
    onResponseClose(ctx, release);
    next();
  } as ShutdownGate;
  gate.drain = async (graceMs) => {
    closing = true;
    if (open > 0) {
      const allClosed = new Promise<void>((resolve) => { idle = resolve; });
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => { timer = setTimeout(resolve, graceMs); });
      await Promise.race([allClosed, grace]);
      clearTimeout(timer);
      for (const res of slots) if (res) end(res);
      if (open > 0) await allClosed;
    }
  };
  Object.defineProperty(gate, 'closing', { get: () => closing });
  gate.responses = function* responses() {
    for (const res of slots) if (res) yield res;
  };
  return gate;
}
