// @ts-check
/** Audit: every operator write, newest first: who (the token's name), what, on which record, before and after. */
import { list } from '../api.js';
import { append, field, h, table } from '../dom.js';
import { time } from '../format.js';
import { pager } from '../ui.js';

export const title = 'Audit';

/** A record before or after a change, folded. @param {string} label @param {unknown} value */
const record = (label, value) => (value === null || value === undefined ? null
  : h('details', null, h('summary', null, label), h('pre', null, JSON.stringify(value, null, 2))));

/** @param {HTMLElement} view @param {import('../ui.js').Ctx} ctx */
export async function render(view, ctx) {
  const target = ctx.query.get('target') ?? undefined;
  const filter = h('form', { class: 'inline', role: 'search', 'data-form': 'audit-filter' },
    field('Target', h('input', { name: 'target', value: target, autocomplete: 'off' }), 'E.g. caller:acme, key:key_…, request:req_…, models.'),
    h('button', { type: 'submit' }, 'Filter'));
  filter.addEventListener('submit', (e) => {
    e.preventDefault();
    const value = String(new FormData(filter).get('target') ?? '').trim();
    ctx.go(value ? `#/audit?${new URLSearchParams({ target: value })}` : '#/audit');
  });
  const trail = pager((after) => list('audit', { target, limit: 50, after }), /** @param {import('../shapes').AuditEntry[]} items */ (items) => table([
    { title: 'Time', cell: (e) => time(e.at), class: 'time' },
    { title: 'Who', cell: (e) => e.actor },
    { title: 'Action', cell: (e) => h('code', null, e.action) },
    { title: 'Target', cell: (e) => h('a', { href: `#/audit?${new URLSearchParams({ target: e.target })}` }, e.target) },
    { title: 'Change', cell: (e) => [record('Before', e.before), record('After', e.after)] },
  ], items, 'No operator writes yet.'));
  await trail.open();
  append(view, filter, trail.box);
}
