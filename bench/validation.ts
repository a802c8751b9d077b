/** In-process timing of validation plus estimate on a 1 MB prompt (the part of admission that grows with the prompt). */
import type { Request, Response } from 'express';
import { createContext } from '../lib/context';
import { defaultEstimator, validate } from '../lib';

/** Mean milliseconds of validate('messages') + defaultEstimator over a 1 MB prompt. */
export function measureValidation(runs = 50): number {
  const check = validate('messages');
  const body = { model: 'claude', max_tokens: 256, system: 'Be brief.', messages: Array.from({ length: 64 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: 'x'.repeat(16 * 1024) })) };
  const res = { locals: { gateway: createContext('req_bench', 'messages') } } as unknown as Response;
  let failed: unknown;
  const run = (): void => {
    check({ body } as Request, res, (err?: unknown) => { failed = err; });
    defaultEstimator(body);
  };
  for (let i = 0; i < 5; i++) run();
  const t = performance.now();
  for (let i = 0; i < runs; i++) run();
  if (failed) throw new Error(`validation failed: ${String(failed)}`);
  return (performance.now() - t) / runs;
}
