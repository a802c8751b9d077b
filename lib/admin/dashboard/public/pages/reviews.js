// @ts-check
/** Reviews: requests whose usage could not be billed from confirmed figures; each charged or waived once, with a reason. */
import { list, send } from '../api.js';
import { carryNote, reviewFacts } from '../billing-notes.js';
import { append, facts, field, h, table } from '../dom.js';
import { currencyLabel, money, time, usageRows, withCurrency } from '../format.js';
import { pager, text, whole, writeForm } from '../ui.js';

export const title = 'Reviews';

/** @typedef {import('../shapes').ReviewView} ReviewRecord */

/** @param {HTMLElement} view @param {import('../ui.js').Ctx} ctx */
export async function render(view, ctx) {
  const all = ctx.query.get('all') === '1';
  const reviews = pager((after) => list('reviews', { open: !all, limit: 20, after }), /** @param {ReviewRecord[]} items */ (items) => (items.length === 0
    ? h('p', { class: 'muted empty' }, all ? 'No reviews yet.' : 'No open reviews: every request is billed.')
    : h('div', { class: 'list' }, items.map((r) => card(r)))));

  /** @param {ReviewRecord} r */
  const card = (r) => {
    const box = h('article', { class: 'card review', 'data-review': r.requestId });
    const fill = (/** @type {ReviewRecord} */ review) => box.replaceChildren(
      h('h2', null, h('a', { href: `#/requests/${encodeURIComponent(review.requestId)}` }, h('code', null, review.requestId))),
      facts([
        ['Caller', review.callerId], ['Model', review.model], ['Endpoint', review.endpoint], ['Settled', time(review.at)],
        ...charged(review), ['Usage provenance', review.usage?.provenance ?? 'none'], ['Upstream', review.upstream ?? '—'],
      ]),
      reviewFacts(review),
      table([{ title: 'Observed', cell: (u) => u[0] }, { title: 'Count', cell: (u) => u[1], class: 'num' }], usageRows(review.usage), 'No usage was observed.'),
      review.resolution ? resolution(review.resolution) : resolveForm(review, fill));
    fill(r);
    return box;
  };

  // The amount decides: a positive one is charged, none (empty or 0) waives the review.
  /** @param {ReviewRecord} review @param {(review: ReviewRecord) => void} fill */
  const resolveForm = (review, fill) => writeForm({
    ctx, name: 'resolve', legend: 'Charge or waive', submit: 'Resolve',
    fields: [
      field('Amount to charge', h('input', { name: 'amount', inputmode: 'numeric', autocomplete: 'off', placeholder: review.observed?.outstanding ? String(review.observed.outstanding) : undefined }),
        `Whole ${currencyLabel()}, on top of what was charged; empty or 0 waives it.${review.observed?.outstanding ? ` ${money(review.observed.outstanding)} bills the observed usage.` : ''}`),
      field('Reason', h('textarea', { name: 'reason', required: true, rows: 2, maxlength: 1000 })),
    ],
    action: async (data) => {
      const amount = whole(data, 'amount', 'Amount to charge') ?? 0;
      const action = amount > 0 ? 'charge' : 'waive';
      /** @type {{ review: ReviewRecord }} */
      const out = await send('POST', `reviews/${encodeURIComponent(review.requestId)}/resolve`, { action, ...(amount > 0 ? { amount } : {}), reason: text(data, 'reason') ?? '' });
      fill(out.review); // resolved: the form is gone, the decision shows
    },
  });

  await reviews.open();
  append(view,
    h('p', null, all ? h('a', { href: '#/reviews' }, 'Open reviews only') : h('a', { href: '#/reviews?all=1' }, 'Show resolved reviews too')),
    carryNote(),
    reviews.box);
}

/**
 * What a review charged: while open, what its settlement charged; once resolved, the decision and the total.
 * @param {ReviewRecord} r @returns {[string, string][]}
 */
const charged = (r) => (r.resolution === null
  ? [['Charged so far', withCurrency(money(r.charge))]]
  : [['Resolution', r.resolution.action === 'charge' ? `charged ${withCurrency(money(r.resolution.amount))} more` : 'waived'],
    ['Charged in all', withCurrency(money(r.charge + r.resolution.amount))]]);

/** @param {import('../shapes').ReviewResolution} r */
const resolution = (r) => h('p', { class: 'resolution', 'data-part': 'resolution' },
  `${r.action === 'charge' ? `Charged ${withCurrency(money(r.amount))}` : 'Waived'} by ${r.by} on ${time(r.at)}: ${r.reason}`);
