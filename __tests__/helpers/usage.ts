/** Usage records for tests: every figure 0 unless given. */
import type { Usage } from '../../lib';

export function usageOf(figures: Partial<Usage> = {}): Usage {
  return {
    inputTokens: 0, cacheReadInputTokens: 0, cacheWrite5mInputTokens: 0, cacheWrite1hInputTokens: 0, outputTokens: 0,
    webSearchRequests: 0, searchUnits: 0, provenance: 'confirmed', ...figures,
  };
}
