/** Collects the usage an upstream confirmed during one request, with its provenance. */
import type { Usage } from '../types';
import type { UsageFigures, UsageRecorder } from '../upstreams/types';

/** A figure as reported, when it is a finite non-negative number (floored); else `previous`. */
function figure(value: number | undefined, previous: number | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : previous;
}

/**
 * A UsageRecorder that keeps the latest cumulative figures and whether they were final. The
 * figures are fixed fields (not a map filled in by report order), so every tracker has one shape.
 */
export class UsageTracker implements UsageRecorder {
  private inputTokens: number | undefined = undefined;
  private outputTokens: number | undefined = undefined;
  private cacheReadInputTokens: number | undefined = undefined;
  private cacheCreationInputTokens: number | undefined = undefined;
  private searchUnits: number | undefined = undefined;
  private completed = false;

  /** Records cumulative figures; later figures replace earlier ones field by field. */
  report(figures: UsageFigures): void {
    this.inputTokens = figure(figures.inputTokens, this.inputTokens);
    this.outputTokens = figure(figures.outputTokens, this.outputTokens);
    this.cacheReadInputTokens = figure(figures.cacheReadInputTokens, this.cacheReadInputTokens);
    this.cacheCreationInputTokens = figure(figures.cacheCreationInputTokens, this.cacheCreationInputTokens);
    this.searchUnits = figure(figures.searchUnits, this.searchUnits);
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
    if (!reported) provenance = 'none';
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
