/** Collects the usage an upstream confirmed during one request, with its provenance; implausible figures are flagged, never billed. */
import type { Usage } from '../types';
import type { UsageFigures, UsageRecorder } from '../upstreams/types';

/** Largest token or unit figure believed for one request; anything above is recorded as observed and flagged for review. */
export const MAX_USAGE_FIGURE = 1_000_000_000;

/**
 * A UsageRecorder that keeps the latest cumulative figures and whether they were final. The
 * figures are fixed fields (not a map filled in by report order), so every tracker has one shape.
 * A figure that is negative or not a number is ignored; one above MAX_USAGE_FIGURE (or output
 * above the request's `max_tokens`) is kept as observed and makes the usage `implausible`.
 */
export class UsageTracker implements UsageRecorder {
  private inputTokens: number | undefined = undefined;
  private outputTokens: number | undefined = undefined;
  private cacheReadInputTokens: number | undefined = undefined;
  private cacheCreationInputTokens: number | undefined = undefined;
  private searchUnits: number | undefined = undefined;
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
    this.inputTokens = this.figure(figures.inputTokens, this.inputTokens);
    this.outputTokens = this.figure(figures.outputTokens, this.outputTokens, this.maxOutput);
    this.cacheReadInputTokens = this.figure(figures.cacheReadInputTokens, this.cacheReadInputTokens);
    this.cacheCreationInputTokens = this.figure(figures.cacheCreationInputTokens, this.cacheCreationInputTokens);
    this.searchUnits = this.figure(figures.searchUnits, this.searchUnits);
  }

  /** Marks the figures as the upstream's final usage for the whole request. */
  complete(): void {
    this.completed = true;
  }

  /** The usage so far, with its provenance. */
  snapshot(): Usage {
    const hasTokens = this.inputTokens !== undefined || this.outputTokens !== undefined;
    // Reported: some figure was ever valid (a figure, once set, stays set).
    const reported = hasTokens || this.cacheReadInputTokens !== undefined || this.cacheCreationInputTokens !== undefined || this.searchUnits !== undefined;
    let provenance: Usage['provenance'];
    if (this.implausible) provenance = 'implausible';
    else if (!reported) provenance = 'none';
    else if (!this.completed) provenance = 'partial';
    else if (hasTokens) provenance = 'confirmed';
    else provenance = this.searchUnits !== undefined ? 'units_only' : 'none';
    return {
      inputTokens: this.inputTokens ?? 0,
      outputTokens: this.outputTokens ?? 0,
      cacheReadInputTokens: this.cacheReadInputTokens ?? 0,
      cacheCreationInputTokens: this.cacheCreationInputTokens ?? 0,
      searchUnits: this.searchUnits ?? 0,
      provenance,
    };
  }
}
