/** Collects the usage an upstream confirmed during one request, with its provenance; implausible figures are flagged, never billed. */
import type { Usage } from '../types';
import type { UsageFigures, UsageRecorder } from '../upstreams/types';
import { everyFigure, FIGURE_NAMES, type UsageFigureName } from './figures';

/** Largest token or unit figure believed for one request; anything above is recorded as observed and flagged for review. */
export const MAX_USAGE_FIGURE = 1_000_000_000;


/**
 * A UsageRecorder that keeps the latest cumulative figures and whether they were final. A figure
 * that is negative or not a number is ignored; one above MAX_USAGE_FIGURE (or output above the
 * request's `max_tokens`) is kept as observed and makes the usage `implausible`. Cache writes
 * reported only as a total (`cacheCreationInputTokens`) count as 5-minute writes: the part of the
 * total that the 5m/1h breakdown does not cover is never dropped.
 */
export class UsageTracker implements UsageRecorder {
  private readonly seen: Record<UsageFigureName, number | undefined> = everyFigure<number | undefined>(undefined);
  private cacheWriteTotal: number | undefined = undefined;
  private completed = false;
  private implausible = false;
  private maxOutput = MAX_USAGE_FIGURE;

  /** Sets the most output the request allows (its `max_tokens`): more is implausible. */
  boundOutput(max: number): void {
    if (Number.isSafeInteger(max) && max >= 0) this.maxOutput = Math.min(max, MAX_USAGE_FIGURE);
  }

  /** A figure as reported, when it is a finite non-negative number (floored); else `previous`. */
  private figure(value: number | undefined, previous: number | undefined, bound = MAX_USAGE_FIGURE): number | undefined {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return previous;
    if (value > bound) this.implausible = true;
    return Math.floor(value);
  }

  /** Records cumulative figures; later figures replace earlier ones field by field. */
  report(figures: UsageFigures): void {
    const seen = this.seen;
    for (const name of FIGURE_NAMES) {
      seen[name] = this.figure(figures[name], seen[name], name === 'outputTokens' ? this.maxOutput : MAX_USAGE_FIGURE);
    }
    this.cacheWriteTotal = this.figure(figures.cacheCreationInputTokens, this.cacheWriteTotal);
  }

  /** Marks the figures as the upstream's final usage for the whole request. */
  complete(): void {
    this.completed = true;
  }

  /** The usage so far, with its provenance. */
  snapshot(): Usage {
    const s = this.seen;
    const hasTokens = s.inputTokens !== undefined || s.outputTokens !== undefined;
    let reported = this.cacheWriteTotal !== undefined;
    for (const name of FIGURE_NAMES) if (s[name] !== undefined) reported = true;
    let provenance: Usage['provenance'];
    if (this.implausible) provenance = 'implausible';
    else if (!reported) provenance = 'none';
    else if (!this.completed) provenance = 'partial';
    else if (hasTokens) provenance = 'confirmed';
    else provenance = s.searchUnits !== undefined ? 'units_only' : 'none';
    const oneHour = s.cacheWrite1hInputTokens ?? 0;
    return {
      inputTokens: s.inputTokens ?? 0,
      cacheReadInputTokens: s.cacheReadInputTokens ?? 0,
      cacheWrite5mInputTokens: Math.max(s.cacheWrite5mInputTokens ?? 0, (this.cacheWriteTotal ?? 0) - oneHour),
      cacheWrite1hInputTokens: oneHour,
      outputTokens: s.outputTokens ?? 0,
      webSearchRequests: s.webSearchRequests ?? 0,
      searchUnits: s.searchUnits ?? 0,
      provenance,
    };
  }
}
