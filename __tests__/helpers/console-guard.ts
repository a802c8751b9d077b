/**
 * Fails a test that writes console.error or console.warn: a test that provokes an error captures it
 * (a store's onError, the writer's onSetAside…) and asserts on it, so `npm test` prints no stray error.
 */
import { format } from 'node:util';

const written: string[] = [];
for (const level of ['error', 'warn'] as const) {
  console[level] = (...args: unknown[]): void => { written.push(`console.${level}: ${format(...args)}`); };
}

const check = (): void => {
  if (written.length > 0) throw new Error(`written and asserted on by no test (capture it and assert on it):\n${written.splice(0).join('\n')}`);
};
afterEach(check);
afterAll(check);
