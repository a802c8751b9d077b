/** Usage both ways: OpenAI counts cached tokens inside `prompt_tokens`, Anthropic beside `input_tokens`. */
import type { MessageUsage } from '../../messages/request';
import { isCount, reportedFigure } from '../../billing/reported-figure';
import type { UsageFigures } from '../../types';
import type { ChatUsage, UpstreamChatUsage } from './types';

/**
 * The figures of an upstream's OpenAI usage: `cacheReadInputTokens` = cached tokens
 * (`prompt_tokens_details.cached_tokens`, or DeepSeek's `prompt_cache_hit_tokens`), `inputTokens`
 * = prompt tokens − cached tokens; OpenAI has no cache writes. Undefined without both token counts.
 * Figures as written (see reportedFigure): one that is not a count is passed on, never subtracted.
 */
export function usageFromChat(usage: UpstreamChatUsage | null | undefined): UsageFigures | undefined {
  const prompt = reportedFigure(usage?.prompt_tokens);
  const output = reportedFigure(usage?.completion_tokens);
  if (prompt === undefined || output === undefined) return undefined;
  const cached = reportedFigure(usage?.prompt_tokens_details?.cached_tokens) ?? reportedFigure(usage?.prompt_cache_hit_tokens) ?? 0;
  if (!isCount(prompt) || !isCount(cached)) return { inputTokens: prompt, outputTokens: output, cacheReadInputTokens: cached };
  const read = Math.min(prompt, cached);
  return { inputTokens: prompt - read, outputTokens: output, cacheReadInputTokens: read };
}

/** The Anthropic usage block for figures (zeros where none were reported), the cache fields always present. */
export function messageUsage(figures: UsageFigures | undefined): MessageUsage {
  return {
    input_tokens: figures?.inputTokens ?? 0,
    output_tokens: figures?.outputTokens ?? 0,
    cache_creation_input_tokens: figures?.cacheCreationInputTokens ?? 0,
    cache_read_input_tokens: figures?.cacheReadInputTokens ?? 0,
  };
}

/** OpenAI's usage for Anthropic usage: prompt tokens include the cache reads and writes; cached tokens are the reads. */
export function chatUsage(usage: Partial<MessageUsage> | undefined): ChatUsage {
  const cached = usage?.cache_read_input_tokens ?? 0;
  const prompt = (usage?.input_tokens ?? 0) + cached + (usage?.cache_creation_input_tokens ?? 0);
  const completion = usage?.output_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: cached } };
}
