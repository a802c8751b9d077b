/** The usage figures, prices and billing statuses the page labels, written as a module (assets/figures.js) from the tables they are written in once. */
import { FIGURE_NAMES, PRICE_FIELDS, priceUnit, USAGE_FIGURES } from '../../billing/figures';
import { BILLING_STATUSES } from '../../schemas/shapes';

/** A cache-write total without its split by duration: what rows logged before the split hold. */
const UNSPLIT_WRITES: [string, string] = ['cacheCreationInputTokens', 'cache-write input tokens (not split by duration)'];

/** The module's text: [field, label] pairs in the table's order, for usage figures and for prices; the figures' short labels; the billing statuses. */
export function figuresModule(): string {
  const usage: Array<[string, string]> = FIGURE_NAMES.map((name) => [name, USAGE_FIGURES[name].label]);
  usage.splice(usage.findIndex(([name]) => name === 'outputTokens'), 0, UNSPLIT_WRITES);
  const short: Array<[string, string]> = FIGURE_NAMES.map((name) => [name, USAGE_FIGURES[name].short]);
  short.splice(short.findIndex(([name]) => name === 'outputTokens'), 0, [UNSPLIT_WRITES[0], 'cache write']);
  const prices = PRICE_FIELDS.map((field) => [field, `${FIGURE_NAMES.map((n) => USAGE_FIGURES[n]).find((f) => f.price === field)?.label}, ${priceUnit(field)}`]);
  return `// Written by the gateway from lib/billing/figures.ts and lib/schemas/shapes.ts.\nexport const USAGE_FIGURES = ${JSON.stringify(usage)};\nexport const SHORT_LABELS = ${JSON.stringify(short)};\nexport const PRICE_FIELDS = ${JSON.stringify(prices)};\nexport const BILLING_STATUSES = ${JSON.stringify(BILLING_STATUSES)};\n`;
}
