/**
 * The per-request counters (requests, billing outcomes, amount charged), tallied in one map
 * between scrapes and added to their prom-client counters when these are read: one map update
 * per request instead of three counter updates with their label checks.
 */
import type { Counter } from 'prom-client';

interface Row {
  readonly endpoint: string;
  readonly model: string;
  readonly status: string;
  readonly billingStatus: string;
  readonly caller: string | undefined;
  requests: number;
  charged: number;
}

/** The counters a tally feeds; `caller` labels are set only when the tally is given callers. */
export interface TalliedCounters {
  requests: Counter<string>;
  billing: Counter<string>;
  charged: Counter<string>;
}

export class RequestTally {
  private readonly rows = new Map<string, Row>();

  constructor(private readonly counters: TalliedCounters) {}

  /** Counts one finished request; `caller` is the hashed caller label, when there is one. */
  add(endpoint: string, model: string, status: number, billingStatus: string, charge: number, caller?: string): void {
    const key = `${endpoint}\n${model}\n${status}\n${billingStatus}\n${caller ?? ''}`;
    let row = this.rows.get(key);
    if (row === undefined) {
      row = { endpoint, model, status: String(status), billingStatus, caller, requests: 0, charged: 0 };
      this.rows.set(key, row);
    }
    row.requests += 1;
    row.charged += charge;
  }

  /** Adds what was counted since the last flush to the counters (each counter's `collect` calls it before a scrape reads it). */
  flush(): void {
    const { requests, billing, charged } = this.counters;
    for (const row of this.rows.values()) {
      if (row.requests === 0) continue;
      const { endpoint, model, status, caller } = row;
      requests.inc(caller === undefined ? { endpoint, model, status } : { endpoint, model, status, caller }, row.requests);
      billing.inc({ billing_status: row.billingStatus }, row.requests);
      if (row.charged > 0) charged.inc(caller === undefined ? { model } : { model, caller }, row.charged);
      row.requests = 0;
      row.charged = 0;
    }
  }
}
