/**
 * The per-request counters (requests, billing outcomes, amount charged), tallied in one map
 * between scrapes and added to their prom-client counters when these are read: one map update
 * per request instead of three counter updates with their label checks.
 */
import type { Counter } from 'prom-client';
import { everyFigure, FIGURE_NAMES, USAGE_FIGURES, type UsageFigureName } from '../billing/figures';
import type { Usage } from '../types';

interface Row {
  readonly endpoint: string;
  readonly model: string;
  readonly status: string;
  readonly billingStatus: string;
  readonly caller: string | undefined;
  requests: number;
  charged: number;
  /** The sum of each usage figure. */
  readonly figures: Record<UsageFigureName, number>;
}

/** The counters a tally feeds; `caller` labels are set only when the tally is given callers. */
export interface TalliedCounters {
  requests: Counter<string>;
  billing: Counter<string>;
  charged: Counter<string>;
  /** Usage by model and figure (`type`: the figure's name, e.g. `cache_write_1h`). */
  usage: Counter<string>;
}

export class RequestTally {
  private readonly rows = new Map<string, Row>();

  constructor(private readonly counters: TalliedCounters) {}

  /** Counts one finished request and its usage; `caller` is the hashed caller label, when there is one. */
  add(endpoint: string, model: string, status: number, billingStatus: string, charge: number, usage: Usage | null, caller?: string): void {
    const key = `${endpoint}\n${model}\n${status}\n${billingStatus}\n${caller ?? ''}`;
    let row = this.rows.get(key);
    if (row === undefined) {
      row = { endpoint, model, status: String(status), billingStatus, caller, requests: 0, charged: 0, figures: everyFigure(0) };
      this.rows.set(key, row);
    }
    row.requests += 1;
    row.charged += charge;
    // Figures not believed (`implausible`) are in the log for review, never in the counters.
    if (usage && usage.provenance !== 'implausible') for (const name of FIGURE_NAMES) row.figures[name] += usage[name];
  }

  /** Adds what was counted since the last flush to the counters (each counter's `collect` calls it before a scrape reads it). */
  flush(): void {
    const { requests, billing, charged, usage } = this.counters;
    for (const row of this.rows.values()) {
      if (row.requests === 0) continue;
      const { endpoint, model, status, caller } = row;
      requests.inc(caller === undefined ? { endpoint, model, status } : { endpoint, model, status, caller }, row.requests);
      billing.inc({ billing_status: row.billingStatus }, row.requests);
      if (row.charged > 0) charged.inc(caller === undefined ? { model } : { model, caller }, row.charged);
      for (const name of FIGURE_NAMES) {
        if (row.figures[name] > 0) usage.inc({ model, type: USAGE_FIGURES[name].name }, row.figures[name]);
        row.figures[name] = 0;
      }
      row.requests = 0;
      row.charged = 0;
    }
  }
}
