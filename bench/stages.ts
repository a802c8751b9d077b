/** `BENCH_STAGES=1 npm run bench`: what each group of the Messages pipeline's stages adds, side by side with (c). */
import { measure, middle, type Load, type Proc } from './measure';

/** Cumulative groups of stages, in the order createGatewayRouter() composes them (bench/targets.ts builds each level). */
export const STAGE_GROUPS = [
  'requestId, jsonBody, authenticate, resolveModel, proxyMessages',
  '+ compatVersion, validate',
  '+ limits (rpm, concurrency, tpm)',
  '+ billingHook, reserve (hold, settle, log in MemoryStore)',
  '+ gracefulShutdown, nested Router: the whole pipeline',
] as const;

/**
 * Loads each level (the first n groups) at the same moment as (c), over alternating rounds, and
 * tabulates the median CPU ratio of each level to (c) and what each group adds to it.
 */
export async function stageTable(
  levels: readonly Proc[], express: Proc, request: Omit<Load, 'proc'>,
  options: { rounds: number; connections: number; seconds: number; warmSeconds: number },
): Promise<string> {
  const ratios: number[][] = levels.map(() => []);
  // Round 0 warms every level up (the JIT) and is not counted.
  for (let round = 0; round <= options.rounds; round++) {
    for (const [i, proc] of levels.entries()) {
      const [c, d] = await measure([{ proc: express, ...request }, { proc, ...request }], options.connections, round > 0 ? options.seconds : options.warmSeconds);
      if (round > 0) ratios[i]?.push((d?.cpu ?? Number.NaN) / (c?.cpu ?? Number.NaN));
      process.stderr.write(round > 0 ? '.' : 'w');
    }
  }
  const rows = ['| stages | CPU vs (c) | added by this group |', '|---|---:|---:|'];
  let previous = 1;
  for (const [i, label] of STAGE_GROUPS.entries()) {
    const ratio = middle(ratios[i] ?? []);
    rows.push(`| ${label} | ${ratio.toFixed(2)} | ${i === 0 ? `${(ratio - 1).toFixed(2)} (over (c))` : `${(ratio - previous).toFixed(2)}`} |`);
    previous = ratio;
  }
  return rows.join('\n');
}
