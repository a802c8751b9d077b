/** In-process limit counters: fixed windows that forget refused points, and slots with no expiry. */
import { WindowCounter } from '../../../lib/limits/memory-counters';
import { MemorySlots } from '../../../lib/limits/slots';

afterEach(() => jest.useRealTimers());

it('a window admits up to its limit, refuses without counting, and starts afresh when it ends', () => {
  jest.useFakeTimers({ now: 1_000_000 });
  const rpm = new WindowCounter(3, 60_000);
  expect([1, 2, 3].map(() => rpm.take('a', 1).ok)).toEqual([true, true, true]);
  jest.setSystemTime(1_000_000 + 20_000);
  expect(rpm.take('a', 1)).toEqual({ ok: false, retryMs: 40_000 });
  expect(rpm.take('b', 1).ok).toBe(true); // keys are separate
  rpm.give('a', 1);
  expect(rpm.take('a', 1).ok).toBe(true); // the refused points were never counted: one given back fits one
  expect(rpm.take('a', 1).ok).toBe(false);
  jest.setSystemTime(1_000_000 + 60_000);
  expect(rpm.take('a', 3).ok).toBe(true);
});

it('a window never goes below zero, and add() counts past the limit', () => {
  jest.useFakeTimers({ now: 5_000 });
  const tpm = new WindowCounter(100, 60_000);
  expect(tpm.take('a', 80).ok).toBe(true);
  tpm.give('a', 500);
  expect(tpm.take('a', 100).ok).toBe(true);
  tpm.add('a', 50);
  expect(tpm.take('a', 1)).toEqual({ ok: false, retryMs: 60_000 });
});

it('ended windows are dropped once many keys have come and gone', () => {
  jest.useFakeTimers({ now: 0 });
  const rpm = new WindowCounter(1, 1000);
  for (let i = 0; i < 5000; i++) rpm.take(`k${i}`, 1);
  jest.setSystemTime(2000);
  for (let i = 0; i < 5000; i++) rpm.take(`n${i}`, 1);
  const size = (rpm as unknown as { windows: Map<string, unknown> }).windows.size;
  expect(size).toBeLessThan(5000 + 2048);
});

it('slots: one per request, taken while free, refused without counting, given back once', () => {
  const slots = new MemorySlots();
  const slot = (id: string) => ({ key: 'a', id, over: () => false });
  expect([slots.take(slot('r1'), 2).ok, slots.take(slot('r2'), 2).ok]).toEqual([true, true]);
  expect(slots.take(slot('r3'), 2)).toEqual({ ok: false, retryMs: 1000 });
  expect(slots.take(slot('r1'), 2).ok).toBe(true); // a request that holds a slot keeps it, no second one
  slots.give(slot('r1'));
  expect(slots.take(slot('r3'), 2).ok).toBe(true);
  slots.give(slot('r3'));
  slots.give(slot('r3'));
  slots.give(slot('r3')); // a slot given back twice never makes room for a third
  expect(slots.count('a')).toBe(1);
  expect([slots.take(slot('r4'), 2).ok, slots.take(slot('r5'), 2).ok]).toEqual([true, false]);
});
