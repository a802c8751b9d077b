/** Collects the usage an upstream confirmed during one request, with its provenance; implausible figures are flagged, never billed. */
import type { Usage, UsageFigures } from './figures';

/**
 * Receives the usage the upstream confirmed. `report` may be called many times with
 * cumulative figures (later figures replace earlier ones); `complete` says the upstream
 * reported its final usage for the whole request.
 */
export interface UsageRecorder {
  report(figures: UsageFigures): void;
  complete(): void;
}

/** Largest token or unit figure believed for one request; anything above is recorded as observed and flagged for review. */
export const MAX_USAGE_FIGURE = 1_000_000_000;

/**
 * A UsageRecorder that keeps the latest cumulative figures and whether they were final. The
 * figures of USAGE_FIGURES are fixed fields, written out rather than looked up by name: this runs
 * on every request, and named fields keep it monomorphic (snapshot()'s type makes the compiler
 * check that every figure is here; a unit test checks report() reads each). A figure left out
 * (undefined or null) is not reported. A figure is believed when it is a whole number from 0 to
 * MAX_USAGE_FIGURE (output: to the request's `max_tokens`); anything else (larger, fractional,
 * negative, not finite, not a number) makes the usage `implausible`: the snapshot holds it
 * bounded to a whole number from 0 to 2^53 − 1 (what JSON, JavaScript and a bigint column all
 * hold exactly) and `observed()` tells it as it came. Cache writes reported only as a total
 * (`cacheCreationInputTokens`) count as 5-minute writes: the part of the total that the 5m/1h
 * breakdown does not cover is never dropped.
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
  /** The figures not believed, by name, as observed (made only when one is). */
  private notes: Map<string, string> | undefined = undefined;

  /** Sets the most output the request allows (its `max_tokens`): more is implausible. */
  boundOutput(max: number): void {
    if (Number.isSafeInteger(max) && max >= 0) this.maxOutput = Math.min(max, MAX_USAGE_FIGURE);
  }

  /** A figure as reported: `previous` when left out; flagged (see the class) when not believed. */
  private figure(name: string, value: unknown, previous: number | undefined, bound = MAX_USAGE_FIGURE): number | undefined {
    if (value === undefined || value === null) return previous;
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) {
      if (value > bound) this.flag(name, String(value), bound < MAX_USAGE_FIGURE ? `over max_tokens ${bound}` : `over ${MAX_USAGE_FIGURE}`);
      return value;
    }
    if (typeof value !== 'number' || Number.isNaN(value)) {
      const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value === 'object' || typeof value === 'function' ? typeof value : String(value);
      this.flag(name, shown, 'not a number');
      return 0;
    }
    this.flag(name, String(value), value < 0 ? 'negative' : !Number.isFinite(value) ? 'not finite' : Number.isInteger(value) ? 'beyond 2^53' : 'not a whole number');
    return Math.min(Math.max(Math.floor(value), 0), Number.MAX_SAFE_INTEGER);
  }

  /** Marks the usage implausible, noting the figure as observed (the last report of each figure is kept). */
  private flag(name: string, value: string, why: string): void {
    this.implausible = true;
    (this.notes ??= new Map()).set(name, `${name} ${value} (${why})`);
  }

  /** The figures not believed, as they came (`outputTokens Infinity (not finite)`); undefined when every figure was. */
  observed(): string | undefined {
    return this.notes && `implausible usage: ${[...this.notes.values()].join(', ')}`;
  }

  /** Records cumulative figures; later figures replace earlier ones field by field. */
  report(f: UsageFigures): void {
    this.inputTokens = this.figure('inputTokens', f.inputTokens, this.inputTokens);
    this.cacheReadInputTokens = this.figure('cacheReadInputTokens', f.cacheReadInputTokens, this.cacheReadInputTokens);
    this.cacheWrite5mInputTokens = this.figure('cacheWrite5mInputTokens', f.cacheWrite5mInputTokens, this.cacheWrite5mInputTokens);
    this.cacheWrite1hInputTokens = this.figure('cacheWrite1hInputTokens', f.cacheWrite1hInputTokens, this.cacheWrite1hInputTokens);
    this.cacheWriteTotal = this.figure('cacheCreationInputTokens', f.cacheCreationInputTokens, this.cacheWriteTotal);
    this.outputTokens = this.figure('outputTokens', f.outputTokens, this.outputTokens, this.maxOutput);
    this.webSearchRequests = this.figure('webSearchRequests', f.webSearchRequests, this.webSearchRequests);
    this.searchUnits = this.figure('searchUnits', f.searchUnits, this.searchUnits);
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
