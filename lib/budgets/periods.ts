/**
 * Calendar periods in a time zone (Intl, no tables of our own): the period an instant falls in,
 * its key and its bounds. A day, week (Monday first) or month starts at the first instant whose
 * local date is its first day, so a zone whose clocks skip midnight still gets whole periods.
 */
import type { BudgetPeriod } from '../schemas/budgets';

/** One period: its key (the same on every instance: `d:2026-11-24`, `w:2026-11-23` (its Monday), `m:2026-11`, `total`) and its bounds in epoch ms. */
export interface Period {
  readonly key: string;
  readonly start: number;
  /** When the next period begins; null for `total`. */
  readonly end: number | null;
}

const HOUR = 3_600_000;
const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formats.set(timeZone, format);
  }
  return format;
}

/** The local calendar fields of an instant in a zone. */
function local(ms: number, timeZone: string): { y: number; m: number; d: number; h: number; mi: number; s: number } {
  const out = { y: 0, m: 0, d: 0, h: 0, mi: 0, s: 0 };
  for (const part of formatOf(timeZone).formatToParts(ms)) {
    const n = Number(part.value);
    if (part.type === 'year') out.y = n;
    else if (part.type === 'month') out.m = n;
    else if (part.type === 'day') out.d = n;
    else if (part.type === 'hour') out.h = n;
    else if (part.type === 'minute') out.mi = n;
    else if (part.type === 'second') out.s = n;
  }
  return out;
}

/** A local date as a comparable day number (days since 1970-01-01 of the proleptic calendar). */
const dayNumber = (y: number, m: number, d: number): number => Math.floor(Date.UTC(y, m - 1, d) / 86_400_000);

/** The first instant whose local date in `timeZone` is the given day or later (binary search over the ±15 h every zone's offset lies in). */
export function startOfDay(y: number, m: number, d: number, timeZone: string): number {
  const target = dayNumber(y, m, d);
  let lo = Date.UTC(y, m - 1, d) - 15 * HOUR; // before: local date < target
  let hi = Date.UTC(y, m - 1, d) + 15 * HOUR; // at or after
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const t = local(mid, timeZone);
    if (dayNumber(t.y, t.m, t.d) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** The period of `period` in `timeZone` that the instant `now` falls in. */
export function periodAt(period: BudgetPeriod, timeZone: string, now: number): Period {
  if (period === 'total') return { key: 'total', start: 0, end: null };
  const { y, m, d } = local(now, timeZone);
  if (period === 'day') {
    const next = new Date(Date.UTC(y, m - 1, d + 1));
    return { key: `d:${y}-${pad(m)}-${pad(d)}`, start: startOfDay(y, m, d, timeZone), end: startOfDay(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), timeZone) };
  }
  if (period === 'week') {
    const weekday = (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7; // Monday 0
    const monday = new Date(Date.UTC(y, m - 1, d - weekday));
    const next = new Date(Date.UTC(y, m - 1, d - weekday + 7));
    const [my, mm, md] = [monday.getUTCFullYear(), monday.getUTCMonth() + 1, monday.getUTCDate()];
    return { key: `w:${my}-${pad(mm)}-${pad(md)}`, start: startOfDay(my, mm, md, timeZone), end: startOfDay(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), timeZone) };
  }
  const next = new Date(Date.UTC(y, m, 1));
  return { key: `m:${y}-${pad(m)}`, start: startOfDay(y, m, 1, timeZone), end: startOfDay(next.getUTCFullYear(), next.getUTCMonth() + 1, 1, timeZone) };
}

/** Periods already computed, by period and zone: the common case is one comparison, a new period costs a few Intl calls once. */
export class PeriodCache {
  private readonly known = new Map<string, Period>();

  at(period: BudgetPeriod, timeZone: string, now: number): Period {
    if (period === 'total') return TOTAL;
    const id = `${period} ${timeZone}`;
    const cached = this.known.get(id);
    if (cached && cached.start <= now && (cached.end === null || now < cached.end)) return cached;
    const found = periodAt(period, timeZone, now);
    if (this.known.size >= 1000) this.known.clear();
    this.known.set(id, found);
    return found;
  }
}

const TOTAL: Period = Object.freeze({ key: 'total', start: 0, end: null });

/** An instant as ISO 8601 in a zone, with that zone's offset then (`2026-11-25T00:00:00+01:00`): what a refusal says a period resets at. */
export function isoInZone(ms: number, timeZone: string): string {
  const t = local(ms, timeZone);
  const offset = Math.round((Date.UTC(t.y, t.m - 1, t.d, t.h, t.mi, t.s) - Math.floor(ms / 1000) * 1000) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${pad(t.y, 4)}-${pad(t.m)}-${pad(t.d)}T${pad(t.h)}:${pad(t.mi)}:${pad(t.s)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
