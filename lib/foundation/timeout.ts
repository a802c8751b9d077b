/** Bounds a store call in time, so a stalled store gives a clear error instead of a hung request. */
import { checkDuration } from './duration';
import { isThenable, type Awaitable } from './sync';

/** Resolves or rejects as `work` does, or rejects with "<what> timed out after N ms". */
export function withTimeout<T>(work: Awaitable<T>, ms: number, what: string): Promise<T> {
  if (!isThenable(work)) return Promise.resolve(work);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Checks a timeout option: a positive integer of milliseconds (the one duration check). */
export const checkTimeout = (value: number, option: string): number => checkDuration(value, option);
