/** lib/context.ts: the request's lifecycle: close hooks, tracked work, the wrap-ups and the one conclusion. */
import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { atEnd, concludeBy, createContext, onResponseClose, requestOver, responseClosed, track, type GatewayContext } from '../../lib/context';

/** A response that is just what the lifecycle reads: its locals and a `close` event. */
function response(): { res: Response; ctx: GatewayContext; close: () => void } {
  const ctx = createContext('req_1', 'messages');
  const res = Object.assign(new EventEmitter(), { locals: { gateway: ctx } }) as unknown as Response;
  res.on('close', responseClosed);
  return { res, ctx, close: () => res.emit('close') };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('the request lifecycle', () => {
  it('runs close hooks, then the conclusion, which runs the wrap-ups where it chooses', () => {
    const { ctx, close } = response();
    const order: string[] = [];
    onResponseClose(ctx, () => order.push('close hook'));
    atEnd(ctx, () => order.push('wrap-up'));
    concludeBy(ctx, (_c, _res, wrapUps) => {
      order.push('conclusion');
      wrapUps(() => undefined);
      order.push('record');
    });
    close();
    expect(ctx.closed).toBe(true);
    expect(order).toEqual(['close hook', 'conclusion', 'wrap-up', 'record']);
  });

  it('waits for tracked work before the request is over, and forgets it once it ended', async () => {
    const { ctx, close } = response();
    let finish!: () => void;
    track(ctx, new Promise<void>((resolve) => { finish = resolve; }));
    const ended = jest.fn();
    atEnd(ctx, ended);
    close();
    await tick();
    expect(ended).not.toHaveBeenCalled();
    expect(requestOver(ctx)).toBe(false);
    finish();
    await tick();
    expect(ended).toHaveBeenCalledTimes(1);
    expect(ctx.work).toBeUndefined();
    expect(requestOver(ctx)).toBe(true);
  });

  it('ends a request whose tracked work failed all the same', async () => {
    const { ctx, close } = response();
    track(ctx, Promise.reject(new Error('upstream gone')));
    const ended = jest.fn();
    atEnd(ctx, ended);
    close();
    await tick();
    expect(ended).toHaveBeenCalledTimes(1);
  });

  it('runs the wrap-ups by themselves with no conclusion; one that throws or rejects stops none', async () => {
    const { ctx, close } = response();
    const ran: number[] = [];
    atEnd(ctx, () => { throw new Error('bad wrap-up'); });
    atEnd(ctx, () => Promise.reject(new Error('bad write')));
    atEnd(ctx, () => ran.push(3));
    close();
    await tick();
    expect(ran).toEqual([3]);
  });

  it('hands the promises of the wrap-ups to the conclusion', () => {
    const { ctx, close } = response();
    const write = Promise.resolve('written');
    atEnd(ctx, () => write);
    atEnd(ctx, () => 'a value, not kept');
    const kept: PromiseLike<unknown>[] = [];
    concludeBy(ctx, (_c, _res, wrapUps) => wrapUps((p) => kept.push(p)));
    close();
    expect(kept).toEqual([write]);
  });

  it('has one conclusion: the first one stands', () => {
    const { ctx, close } = response();
    const first = jest.fn();
    const second = jest.fn();
    expect(concludeBy(ctx, first)).toBe(true);
    expect(concludeBy(ctx, second)).toBe(false);
    close();
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).not.toHaveBeenCalled();
  });
});
