// @ts-check
/** Reviews: requests whose usage could not be billed from confirmed figures; each charged or waived once, with a reason. */
import { list, send } from '../api.js';
import { append, facts, field, h, table } from '../dom.js';
import { money, time, usageRows } from '../format.js';
import { pager, text, whole, writeForm } from '../ui.js';

export const title = 'Reviews';

/** @typedef {import('../shapes').ReviewRecord} ReviewRecord */

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
        ['Charged so far', money(review.charge)], ['Usage provenance', review.usage?.provenance ?? 'none'], ['Upstream', review.upstream ?? '—'],
      ]),
      table([{ title: 'Observed', cell: (u) => u[0] }, { title: 'Count', cell: (u) => u[1], class: 'num' }], usageRows(review.usage), 'No usage was observed.'),
      review.resolution ? resolution(review.resolution) : resolveForm(review, fill));
    fill(r);
    return box;
  };

  /** @param {ReviewRecord} review @param {(review: ReviewRecord) => void} fill */
  const resolveForm = (review, fill) => writeForm({
    ctx, name: 'resolve', legend: 'Resolve', submit: 'Resolve',
    fields: [
      h('div', { class: 'choice', role: 'radiogroup', 'aria-label': 'Decision' },
        h('label', null, h('input', { type: 'radio', name: 'action', value: 'charge', checked: true }), ' Charge'),
        h('label', null, h('input', { type: 'radio', name: 'action', value: 'waive' }), ' Waive')),
      field('Amount to charge', h('input', { name: 'amount', inputmode: 'numeric', autocomplete: 'off' }), 'Whole minor units, on top of what was charged; empty to waive.'),
      field('Reason', h('textarea', { name: 'reason', required: true, rows: 2, maxlength: 1000 })),
    ],
    action: async (data) => {
      const action = text(data, 'action') === 'waive' ? 'waive' : 'charge';
      const amount = action === 'charge' ? whole(data, 'amount', 'Amount to charge') : undefined;
      /** @type {{ review: ReviewRecord }} */
      const out = await send('POST', `reviews/${encodeURIComponent(review.requestId)}/resolve`, { action, ...(amount !== undefined ? { amount } : {}), reason: text(data, 'reason') ?? '' });
      fill(out.review); // resolved: the form is gone, the decision shows
    },
  });

  await reviews.open();
  append(view,
    h('p', null, all ? h('a', { href: '#/reviews' }, 'Open reviews only') : h('a', { href: '#/reviews?all=1' }, 'Show resolved reviews too')),
    reviews.box);
}

/** @param {import('../shapes').ReviewResolution} r */
const resolution = (r) => h('p', { class: 'resolution', 'data-part': 'resolution' },
  `${r.action === 'charge' ? `Charged ${money(r.amount)}` : 'Waived'} by ${r.by} on ${time(r.at)}: ${r.reason}`);
