// @ts-check
/** How the page shows figures: money exactly as the ledger holds it (integers and decimal strings, never a float) with its label, times and their zone, usage. */
import { h } from './dom.js';
import { SHORT_LABELS, USAGE_FIGURES } from './figures.js';

export { PRICE_FIELDS } from './figures.js';

/**
 * Integer minor units, grouped by thousands: BigInt keeps every digit.
 * @param {number | string | bigint} units @param {boolean} [signed]  a + before credits
 */
export function money(units, signed = false) {
  let value;
  try {
    value = BigInt(units);
  } catch {
    return String(units); // not an integer: shown as it came
  }
  const text = (value < 0n ? -value : value).toLocaleString('en-US');
  return value < 0n ? `-${text}` : signed && value > 0n ? `+${text}` : text;
}

/** What one unit of money is called (createAdminRouter's `currency`), from the session. */
let currency = '';

/** Sets the label money is shown with. @param {string} label */
export const setCurrency = (label) => { currency = label; };

/** A figure of money (from money() or decimal()) with its label: "1,000 USD cents". @param {string} figure */
export const withCurrency = (figure) => `${figure} ${currency}`;

/** A column heading of money, its label beneath: a table's cells then show bare figures. @param {string} title */
export const moneyHeading = (title) => [title, h('small', { class: 'unit' }, currency)];

/** The label itself, for text that names the unit ("Prices in USD cents…"). */
export const currencyLabel = () => currency;

const SCALE = 12;
/** @param {string} decimal */
const toScaled = (decimal) => {
  const [whole = '0', fraction = ''] = decimal.split('.');
  return BigInt(whole) * 10n ** BigInt(SCALE) + BigInt(fraction.padEnd(SCALE, '0').slice(0, SCALE));
};

/** The exact sum of decimal strings of minor units ("0.0258" + "1.5" = "1.5258"). @param {string[]} decimals */
export function sumDecimals(decimals) {
  const total = decimals.reduce((sum, d) => sum + toScaled(d), 0n);
  const unit = 10n ** BigInt(SCALE);
  const fraction = String(total % unit).padStart(SCALE, '0').replace(/0+$/, '');
  return `${total / unit}${fraction ? `.${fraction}` : ''}`;
}

/** A decimal string of minor units (a cost), its whole part grouped by thousands, every digit kept ("27073.7": "27,073.7"). @param {string} amount */
export function decimal(amount) {
  const [whole = '0', fraction] = amount.split('.');
  return `${money(whole)}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** The exact sum of integers of minor units. @param {number[]} units */
export const sumUnits = (units) => units.reduce((sum, u) => sum + BigInt(u), 0n);

/** @param {number} n */
const two = (n) => String(n).padStart(2, '0');

/** A local time as "2025-01-31 14:05:09". @param {number | null | undefined} ms */
export function time(ms) {
  if (ms === null || ms === undefined) return '—';
  const d = new Date(ms);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** A local day as "2025-01-31". @param {number} ms */
export const dateOf = (ms) => time(ms).slice(0, 10);

/** A local hour as "2025-01-31 14:00". @param {number} ms */
export const hourOf = (ms) => time(ms).slice(0, 16);

/**
 * The browser's time zone, in which every time is shown, with its offset at `ms`: "Europe/Berlin (UTC+01:00)".
 * @param {number} [ms]
 */
export function zone(ms = Date.now()) {
  const offset = -new Date(ms).getTimezoneOffset();
  const utc = offset === 0 ? 'UTC' : `UTC${offset < 0 ? '-' : '+'}${two(Math.trunc(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
  const name = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return name && name !== 'UTC' ? `${name} (${utc})` : utc;
}

/** A value for <input type="datetime-local">, and back. @param {number} ms */
export const localInput = (ms) => time(ms).replace(' ', 'T');

/** A duration in ms, as "842 ms" or "3.2 s". @param {number | null | undefined} ms */
export function duration(ms) {
  if (ms === null || ms === undefined) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A count with thousands grouped. @param {number} n */
export const count = (n) => n.toLocaleString('en-US');

/** A label as the table writes it, as a heading shows it ("input tokens": "Input tokens"). @param {string} label */
export const heading = (label) => label.charAt(0).toUpperCase() + label.slice(1);

/**
 * The figures a usage holds, labelled: known ones in order, then any other number under its own key.
 * @param {object | null | undefined} figures @returns {[string, string][]}
 */
export function usageRows(figures) {
  if (!figures) return [];
  const usage = /** @type {Record<string, unknown>} */ (figures);
  const labels = new Map(USAGE_FIGURES);
  const known = USAGE_FIGURES.filter(([key]) => typeof usage[key] === 'number').map(([key, label]) => /** @type {[string, string]} */ ([heading(label), count(/** @type {number} */ (usage[key]))]));
  const other = Object.entries(usage).filter(([key, v]) => typeof v === 'number' && !labels.has(key)).map(([key, v]) => /** @type {[string, string]} */ ([key, count(/** @type {number} */ (v))]));
  return [...known, ...other];
}

/**
 * What a usage counted, in one short line ("1,200 input, 15 output"), every figure's full label in its title; "—" for none.
 * @param {object | null | undefined} figures
 */
export function usageFor(figures) {
  const usage = /** @type {Record<string, unknown>} */ (figures ?? {});
  const shown = SHORT_LABELS.filter(([key]) => typeof usage[key] === 'number' && usage[key] !== 0).map(([key, label]) => `${count(/** @type {number} */ (usage[key]))} ${label}`);
  if (shown.length === 0) return '—';
  return h('span', { title: usageRows(figures).filter(([, n]) => n !== '0').map(([label, n]) => `${n} ${label.toLowerCase()}`).join(', ') }, shown.join(', '));
}

/** A price as the catalog holds it (a number or a decimal string), shown as written. @param {unknown} price */
export const price = (price) => (price === undefined || price === null ? '—' : String(price));
