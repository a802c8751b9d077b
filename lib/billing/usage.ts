/** Collects the usage an upstream confirmed during one request, with its provenance. */
import type { Usage } from '../types';
import type { UsageFigures, UsageRecorder } from '../upstreams/types';

/** A UsageRecorder that keeps the latest cumulative figures and whether they were final. */
export class UsageTracker implements UsageRecorder {
  private figures: UsageFigures = {};
  private reported = false;
  private completed = false;

  /** Records cumulative figures; later figures replace earlier ones field by field. */
  report(figures: UsageFigures): void {
    for (const name in figures) {
      const key = name as keyof UsageFigures;
      const value = figures[key];
      if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
        this.figures[key] = Math.floor(value);
        this.reported = true;
      }
    }
  }

  /** Marks the figures as the upstream's final usage for the whole request. */
  complete(): void {
    this.completed = true;
  }

  /** The usage so far, with its provenance. */
  snapshot(): Usage {
    const f = this.figures;
    const hasTokens = f.inputTokens !== undefined || f.outputTokens !== undefined;
    let provenance: Usage['provenance'];
    if (!this.reported) provenance = 'none';
    else if (!this.completed) provenance = 'partial';
    else if (hasTokens) provenance = 'confirmed';
    else provenance = f.searchUnits !== undefined ? 'units_only' : 'none';
    return {
      inputTokens: f.inputTokens ?? 0,
      outputTokens: f.outputTokens ?? 0,
      cacheReadInputTokens: f.cacheReadInputTokens ?? 0,
      cacheCreationInputTokens: f.cacheCreationInputTokens ?? 0,
      searchUnits: f.searchUnits ?? 0,
      provenance,
    };
  }
}
