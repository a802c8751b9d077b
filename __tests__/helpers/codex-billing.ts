/** What the gateway must bill for the Codex fakes' calls, and the check of its records against it: the figures each call
 * reported and their exact cost, what Codex sums for its turn, and the log, ledger and account that must follow. */
import { type LedgerEntry, type Pricing, type Usage } from '../../lib';
import { costOf } from '../../lib/billing/pricing';
import { carryCharge } from '../../lib/billing/money';
import type { CodexUsage } from './codex';
import type { TurnUsage } from './fake-agent-anthropic-turns';
import type { OpenAITurnUsage } from './fake-agent-openai-chunks';

export type Figures = Omit<Usage, 'provenance' | 'webSearchRequests' | 'searchUnits'>;
export interface BilledCall { usage: Figures; cost: string }

/** Each call a fake answered (`usage` as it reported it), as the gateway must bill it at `pricing`. */
export function billedCalls(turns: Array<{ usage: TurnUsage } | { usage: OpenAITurnUsage }>, pricing: Pricing): BilledCall[] {
  return turns.map(({ usage: u }) => {
    const format = 'prompt_tokens' in u ? 'openai' : 'anthropic';
    const usage: Figures = 'prompt_tokens' in u
      ? { inputTokens: u.prompt_tokens - u.cached_tokens, cacheReadInputTokens: u.cached_tokens, cacheWrite5mInputTokens: 0, cacheWrite1hInputTokens: 0, outputTokens: u.completion_tokens }
      : { inputTokens: u.input_tokens, cacheReadInputTokens: u.cache_read_input_tokens, cacheWrite5mInputTokens: u.ephemeral_5m_input_tokens, cacheWrite1hInputTokens: u.ephemeral_1h_input_tokens, outputTokens: u.output_tokens };
    return { usage, cost: costOf({ ...usage, webSearchRequests: 0, searchUnits: 0 }, pricing, format) };
  });
}

/** What Codex reports for its turn (the calls summed): Responses usage counts the whole prompt, cache reads and writes included. */
export function reportedUsage(billed: BilledCall[]): Partial<CodexUsage> {
  const sum = (f: (u: Figures) => number): number => billed.reduce((n, b) => n + f(b.usage), 0);
  const writes = sum((u) => u.cacheWrite5mInputTokens + u.cacheWrite1hInputTokens);
  return {
    input_tokens: sum((u) => u.inputTokens + u.cacheReadInputTokens) + writes, cached_input_tokens: sum((u) => u.cacheReadInputTokens),
    output_tokens: sum((u) => u.outputTokens), ...(writes > 0 ? { cache_write_input_tokens: writes } : {}),
  };
}

/** The gateway's records of a caller's calls (opened with `opening`) against what the upstream reported: the log (cost,
 * figures), one ledger charge per call that costs a whole unit (each cost rounded down once through the carry), the balance and
 * carry left. */
export function expectBilled(billed: BilledCall[], opening: number, records: {
  log: Array<{ requestId: string; cost: unknown; usage: unknown }>; ledger: LedgerEntry[]; account: { balance: number; carry: string };
}): void {
  expect(records.log.map((e) => e.cost)).toEqual(billed.map((b) => b.cost));
  expect(records.log.map((e) => e.usage)).toEqual(billed.map((b) => expect.objectContaining({ ...b.usage, provenance: 'confirmed' })));
  let carry = '0';
  const charges = billed.map((b) => {
    const c = carryCharge(carry, b.cost);
    carry = c.carry;
    return c.charge;
  });
  const charged = records.ledger.filter((l) => l.kind === 'charge').sort((a, b) => Number(a.id) - Number(b.id));
  expect(charged.map((l) => [l.requestId, l.amount])).toEqual(records.log.flatMap((e, i) => (charges[i] ? [[e.requestId, -charges[i]]] : []))); // none for 0
  expect(records.account).toMatchObject({ balance: opening - charges.reduce((a, b) => a + b, 0), carry });
}
