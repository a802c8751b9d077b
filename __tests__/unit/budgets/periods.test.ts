/** Calendar periods in a time zone: keys every instance agrees on, bounds at local midnight (even where clocks skip it), the cache, and the reset time a refusal shows. */
import { isoInZone, PeriodCache, periodAt, startOfDay } from '../../../lib/budgets/periods';

const at = (iso: string): number => Date.parse(iso);

describe('periodAt', () => {
  it('a day, a week (Monday first) and a month in UTC: their keys and bounds', () => {
    const now = at('2026-11-25T13:00:00Z'); // a Wednesday
    expect(periodAt('day', 'UTC', now)).toEqual({ key: 'd:2026-11-25', start: at('2026-11-25T00:00:00Z'), end: at('2026-11-26T00:00:00Z') });
    expect(periodAt('week', 'UTC', now)).toEqual({ key: 'w:2026-11-23', start: at('2026-11-23T00:00:00Z'), end: at('2026-11-30T00:00:00Z') });
    expect(periodAt('month', 'UTC', now)).toEqual({ key: 'm:2026-11', start: at('2026-11-01T00:00:00Z'), end: at('2026-12-01T00:00:00Z') });
    expect(periodAt('total', 'UTC', now)).toEqual({ key: 'total', start: 0, end: null });
  });

  it('follows the zone: the same instant is another day in Tokyo, and a month in New York spans its change of offset', () => {
    const now = at('2026-11-24T23:30:00Z');
    expect(periodAt('day', 'Asia/Tokyo', now)).toEqual({ key: 'd:2026-11-25', start: at('2026-11-24T15:00:00Z'), end: at('2026-11-25T15:00:00Z') });
    expect(periodAt('month', 'America/New_York', now)).toEqual({ key: 'm:2026-11', start: at('2026-11-01T04:00:00Z'), end: at('2026-12-01T05:00:00Z') });
    expect(periodAt('day', 'Asia/Kathmandu', now).start).toBe(at('2026-11-24T18:15:00Z'));
  });

  it('a day ends exactly where the next begins: the last millisecond is in it, the next one is not', () => {
    const { end } = periodAt('day', 'Europe/Paris', at('2026-03-28T12:00:00Z'));
    expect(end).toBe(at('2026-03-28T23:00:00Z'));
    expect(periodAt('day', 'Europe/Paris', (end as number) - 1).key).toBe('d:2026-03-28');
    expect(periodAt('day', 'Europe/Paris', end as number).key).toBe('d:2026-03-29');
    // The day clocks go forward is 23 hours long.
    const short = periodAt('day', 'Europe/Paris', end as number);
    expect(((short.end as number) - short.start) / 3_600_000).toBe(23);
  });

  it('where clocks skip midnight (Santiago, 6 September 2026), the day starts at its first instant, 01:00', () => {
    const start = startOfDay(2026, 9, 6, 'America/Santiago');
    expect(isoInZone(start, 'America/Santiago')).toBe('2026-09-06T01:00:00-03:00');
    expect(isoInZone(start - 1, 'America/Santiago')).toBe('2026-09-05T23:59:59-04:00');
    expect(periodAt('day', 'America/Santiago', start + 1).start).toBe(start);
  });
});

describe('PeriodCache', () => {
  it('answers within a period with the same period, and moves on at its end', () => {
    const cache = new PeriodCache();
    const first = cache.at('day', 'UTC', at('2026-11-25T01:00:00Z'));
    expect(cache.at('day', 'UTC', at('2026-11-25T23:59:59.999Z'))).toBe(first);
    expect(cache.at('day', 'UTC', at('2026-11-26T00:00:00Z')).key).toBe('d:2026-11-26');
    expect(cache.at('day', 'UTC', at('2026-11-25T12:00:00Z')).key).toBe('d:2026-11-25'); // a clock set back is answered too
  });
});

describe('isoInZone', () => {
  it('writes an instant with the offset of its zone then', () => {
    expect(isoInZone(at('2026-11-25T23:00:00Z'), 'Europe/Paris')).toBe('2026-11-26T00:00:00+01:00');
    expect(isoInZone(at('2026-07-01T04:00:00Z'), 'America/New_York')).toBe('2026-07-01T00:00:00-04:00');
    expect(isoInZone(at('2026-07-01T00:00:00Z'), 'UTC')).toBe('2026-07-01T00:00:00+00:00');
  });
});
