// @ts-check
/** Overview: requests, errors and spend over the last 24 hours and 7 days, open reviews, lowest balances. */
import { get, list } from '../api.js';
import { barChart } from '../chart.js';
import { append, h, table } from '../dom.js';
import { count, dateOf, decimal, hourOf, money, moneyHeading, sumDecimals, sumUnits, withCurrency } from '../format.js';

export const title = 'Overview';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** @typedef {import('../shapes').SeriesPoint} Point */
/** @typedef {{ buckets: Point[] }} Series */

/** The last 24 hours by the hour and the last 7 days by the day, each ending with the bucket of now (local time). */
function ranges(now = new Date()) {
  const hour = new Date(now);
  hour.setMinutes(0, 0, 0);
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  return {
    day: { from: hour.getTime() - 23 * HOUR, to: hour.getTime() + HOUR, bucketMs: HOUR },
    week: { from: midnight.getTime() - 6 * DAY, to: midnight.getTime() + DAY, bucketMs: DAY },
  };
}

/** @param {Point[]} points */
const totals = (points) => ({
  requests: points.reduce((n, p) => n + p.requests, 0),
  errors: points.reduce((n, p) => n + p.errors, 0),
  charge: sumUnits(points.map((p) => p.charge)),
  cost: sumDecimals(points.map((p) => p.cost)),
});

/** An error rate to one decimal ("2.5 %"): a ratio for the eye, not money. @param {{ requests: number, errors: number }} t */
const rate = (t) => (t.requests === 0 ? '—' : `${((100 * t.errors) / t.requests).toFixed(1)} %`);

/** @param {string} label @param {string} value @param {string} [detail] @param {string} [name] */
const card = (label, value, detail, name) => h('div', { class: 'card stat', 'data-stat': name }, h('span', { class: 'muted' }, label), h('strong', null, value), detail ? h('small', { class: 'muted' }, detail) : null);

/** @param {string} name @param {string} period @param {Point[]} points @param {(at: number) => string} tick */
function charts(name, period, points, tick) {
  const t = totals(points);
  return [
    barChart({
      name: `requests-${name}`, title: `Requests, ${period}`, points, tick, total: `${count(t.requests)} requests, ${count(t.errors)} errors`,
      bars: [
        { key: 'requests', label: 'requests', value: (p) => p.requests, text: (p) => count(p.requests) },
        { key: 'errors', label: 'errors', value: (p) => p.errors, text: (p) => count(p.errors) },
      ],
    }),
    barChart({
      name: `spend-${name}`, title: `Charged, ${period}`, points, tick, total: `${withCurrency(money(t.charge))} (cost ${decimal(t.cost)})`,
      bars: [{ key: 'charge', label: 'charged', value: (p) => p.charge, text: (p) => `${withCurrency(money(p.charge))} (cost ${decimal(p.cost)})` }],
    }),
  ];
}

/** @param {HTMLElement} view */
export async function render(view) {
  const { day, week } = ranges();
  /** @type {[Series, Series, import('../shapes').Page<import('../shapes').ReviewRecord>, import('../shapes').Page<import('../shapes').AccountRow>]} */
  const [hourly, daily, open, lowest] = await Promise.all([
    get('stats/requests', day), get('stats/requests', week), list('reviews', { open: true, limit: 100 }), list('accounts', { limit: 5 }),
  ]);
  const t = totals(hourly.buckets);
  append(view,
    h('div', { class: 'cards' },
      card('Requests, 24 h', count(t.requests), `${count(totals(daily.buckets).requests)} in 7 days`, 'requests'),
      card('Error rate, 24 h', rate(t), `${count(t.errors)} failed`, 'errors'),
      card('Charged, 24 h', withCurrency(money(t.charge)), `exact cost ${withCurrency(decimal(t.cost))}`, 'charged'),
      card('Open reviews', `${open.items.length}${open.next ? '+' : ''}`, 'to charge or waive', 'reviews')),
    h('div', { class: 'charts' },
      charts('24h', 'last 24 hours', hourly.buckets, hourOf),
      charts('7d', 'last 7 days', daily.buckets, dateOf)),
    h('h2', null, 'Lowest balances'),
    table([
      { title: 'Caller', cell: (a) => h('a', { href: `#/accounts/${encodeURIComponent(a.callerId)}` }, a.callerId) },
      { title: moneyHeading('Balance'), cell: (a) => money(a.balance), class: 'num' },
      { title: moneyHeading('Held'), cell: (a) => money(a.held), class: 'num' },
    ], lowest.items, 'No accounts yet.'),
  );
}
