/** Collects the usage an upstream confirmed during one request, with its provenance; implausible figures are flagged, never billed. */
import type { Usage } from '../types';
import type { UsageFigures, UsageRecorder } from '../upstreams/types';

/** Largest token or unit figure believed for one request; anything above is recorded as observed and flagged for review. */
export const MAX_USAGE_FIGURE = 1_000_000_000;

/**
 * A UsageRecorder that keeps the latest cumulative figures and whether they were final. The
 * figures of USAGE_FIGURES are fixed fields, written out rather than looked up by name: this runs
 * on every request, and named fields keep it monomorphic (snapshot()'s type makes the compiler
 * check that every figure is here; a unit test checks report() reads each). A figure that is
 * negative or not a number is ignored; one above MAX_USAGE_FIGURE (or output above the request's
 * `max_tokens`) is kept as observed and makes the usage `implausible`. Cache writes reported only
 * as a total (`cacheCreationInputTokens`) count as 5-minute writes: the part of the total that
 * the 5m/1h breakdown does not cover is never dropped.
 */
export class UsageTracker implements UsageRecorder {
  private inputTokens: number | undefined = undefined;
  private cacheReadInputTokens: number | undefined = undefined;
  private cacheWrite5mInputTokens: number | undefined = undefined;
  private cacheWrite1hInputTokens: number | undefined = undefined;
  private cacheWriteTotal: number | undefined = undefined;
  private outputTokens: number | undefined = undefined;
  private webSearchRequests: number | undefined = undefined;
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
  report(f: UsageFigures): void {
    this.inputTokens = this.figure(f.inputTokens, this.inputTokens);
    this.cacheReadInputTokens = this.figure(f.cacheReadInputTokens, this.cacheReadInputTokens);
    this.cacheWrite5mInputTokens = this.figure(f.cacheWrite5mInputTokens, this.cacheWrite5mInputTokens);
    this.cacheWrite1hInputTokens = this.figure(f.cacheWrite1hInputTokens, this.cacheWrite1hInputTokens);
    this.cacheWriteTotal = this.figure(f.cacheCreationInputTokens, this.cacheWriteTotal);
    this.outputTokens = this.figure(f.outputTokens, this.outputTokens, this.maxOutput);
    this.webSearchRequests = this.figure(f.webSearchRequests, this.webSearchRequests);
    this.searchUnits = this.figure(f.searchUnits, this.searchUnits);
  }

  /** Marks the figures as the upstream's final usage for the whole request. */
  complete(): void {
    this.completed = true;
  }

  /** The usage so far, with its provenance. */
  snapshot(): Usage {
    const hasTokens = this.inputTokens !== undefined || this.outputTokens !== undefined;
    // Reported: some figure was ever valid (a figure, once set, stays set).
    const reported = hasTokens || this.cacheReadInputTokens !== undefined || this.cacheWrite5mInputTokens !== undefined
      || this.cacheWrite1hInputTokens !== undefined || this.cacheWriteTotal !== undefined || this.webSearchRequests !== undefined || this.searchUnits !== undefined;
    let provenance: Usage['provenance'];
    if (this.implausible) provenance = 'implausible';
    else if (!reported) provenance = 'none';
    else if (!this.completed) provenance = 'partial';
    else if (hasTokens) provenance = 'confirmed';
    else provenance = this.searchUnits !== undefined ? 'units_only' : 'none';
    const oneHour = this.cacheWrite1hInputTokens ?? 0;
    return {
      inputTokens: this.inputTokens ?? 0,
      cacheReadInputTokens: this.cacheReadInputTokens ?? 0,
      cacheWrite5mInputTokens: Math.max(this.cacheWrite5mInputTokens ?? 0, (this.cacheWriteTotal ?? 0) - oneHour),
      cacheWrite1hInputTokens: oneHour,
      outputTokens: this.outputTokens ?? 0,
      webSearchRequests: this.webSearchRequests ?? 0,
      searchUnits: this.searchUnits ?? 0,
      provenance,
    };
  }
}
