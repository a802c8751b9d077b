// @ts-check
/** Requests: the request log filtered (caller, model, endpoint, status, billing status, time range), a page at a time; one request in full. */
import { get, list } from '../api.js';
import { carryNote, reviewFacts } from '../billing-notes.js';
import { append, facts, field, h, table } from '../dom.js';
import { decimal, duration, localInput, money, moneyHeading, time, usageRows, withCurrency } from '../format.js';
import { BILLING_STATUSES } from '../figures.js';
import { pager } from '../ui.js';

export const title = 'Requests';

/** @typedef {import('../shapes').RequestLogEntry} RequestLogEntry @typedef {import('../shapes').RequestDetail} RequestDetail */

const PAGE_SIZE = 50;
const ENDPOINTS = ['messages', 'chat_completions', 'responses', 'count_tokens', 'responses_input_tokens', 'rerank', 'models'];

/** @param {HTMLElement} view @param {import('../ui.js').Ctx} ctx */
export async function render(view, ctx) {
  if (ctx.param !== undefined) return one(view, ctx.param);
  const q = ctx.query;
  /** @param {string} name */
  const at = (name) => (q.get(name) ? localInput(Number(q.get(name))) : undefined);
  const filters = h('form', { class: 'filters', 'data-form': 'filters', role: 'search' },
    field('Caller', h('input', { name: 'callerId', value: q.get('callerId') ?? undefined, autocomplete: 'off' })),
    field('Model', h('input', { name: 'model', value: q.get('model') ?? undefined, autocomplete: 'off' })),
    field('Endpoint', h('input', { name: 'endpoint', list: 'endpoints', value: q.get('endpoint') ?? undefined, autocomplete: 'off' })),
    h('datalist', { id: 'endpoints' }, ENDPOINTS.map((e) => h('option', { value: e }))),
    field('Status', h('input', { name: 'status', inputmode: 'numeric', value: q.get('status') ?? undefined, autocomplete: 'off' })),
    field('Billing', h('select', { name: 'billingStatus' }, h('option', { value: '' }, 'any'),
      BILLING_STATUSES.map((b) => h('option', { value: b, selected: q.get('billingStatus') === b }, b.replace('_', ' '))))),
    field('From', h('input', { name: 'from', type: 'datetime-local', value: at('from') })),
    field('To', h('input', { name: 'to', type: 'datetime-local', value: at('to') })),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Filter'), h('a', { href: '#/requests', class: 'button quiet' }, 'Clear')));
  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const [name, value] of new FormData(filters)) {
      const v = String(value).trim();
      if (v) next.set(name, name === 'from' || name === 'to' ? String(new Date(v).getTime()) : v);
    }
    ctx.go(`#/requests?${next}`);
  });
  /** @type {Record<string, string>} */
  const query = Object.fromEntries(q);
  const log = pager((after) => list('requests', { ...query, limit: PAGE_SIZE, after }), /** @param {RequestLogEntry[]} items */ (items) => table([
    { title: 'Time', cell: (r) => time(r.startedAt), class: 'time' },
    // A narrow screen shows the start of the id (the link and its title hold all of it) and leaves out endpoint and duration (in the request's own view).
    { title: 'Request', cell: (r) => h('a', { href: `#/requests/${encodeURIComponent(r.requestId)}`, title: r.requestId, class: 'id' }, h('code', null, r.requestId)) },
    { title: 'Caller', cell: (r) => r.callerId ?? '—' },
    { title: 'Model', cell: (r) => r.model ?? '—' },
    { title: 'Endpoint', cell: (r) => r.endpoint, class: 'wide' },
    { title: 'Status', cell: (r) => h('span', { class: r.status >= 400 || r.errorCode ? 'status failed' : 'status' }, String(r.status)), class: 'col-status' },
    { title: 'Billing', cell: (r) => r.billingStatus.replace('_', ' '), class: 'col-billing' },
    { title: moneyHeading('Charge'), cell: (r) => money(r.charge), class: 'num col-charge' },
    { title: 'Duration', cell: (r) => duration(r.durationMs), class: 'num wide' },
  ], items, 'No request matches.'));
  await log.open();
  append(view, filters, log.box);
}

/** Why a response was not stored, in words. */
const NOT_STORED = { too_large: 'over the size bound', conflict: 'its id is another account\'s', not_requested: 'the request said store: false', disabled: 'storing is off' };

/**
 * What a Responses API request made: its response, stored or why not, and what it chained from (nothing for other requests).
 * @param {RequestDetail['response']} response @returns {[string, import('../dom.js').Child][]}
 */
function responseFacts(response) {
  if (!response) return [];
  const stored = response.stored ? 'stored' : `not stored (${response.reason ? NOT_STORED[response.reason] : 'unknown'})`;
  return [
    ['Response', [h('code', { 'data-figure': 'response-id' }, response.id), ' ', h('span', { 'data-figure': 'stored' }, stored)]],
    ['Chained from', response.previousResponseId ? h('code', { 'data-figure': 'previous-response-id' }, response.previousResponseId) : '—'],
  ];
}

/** One request: what it cost, how long it took, where the figures came from. @param {HTMLElement} view @param {string} requestId */
async function one(view, requestId) {
  /** @type {RequestDetail} */
  const r = await get(`requests/${encodeURIComponent(requestId)}`);
  append(view,
    h('p', null, h('a', { href: '#/requests' }, '← Request log')),
    facts([
      ['Request id', h('code', { 'data-figure': 'request-id' }, r.requestId)],
      ['Time', time(r.startedAt)],
      ['Caller', r.callerId ? h('a', { href: `#/accounts/${encodeURIComponent(r.callerId)}` }, r.callerId) : '—'],
      ['Endpoint', r.endpoint],
      ['Model', r.model ?? '—'],
      ['Stream', r.stream ? 'yes' : 'no'],
      ['Status', String(r.status)],
      ['Error', r.errorCode ?? '—'],
      ['Billing', r.billingStatus.replace('_', ' ')],
      ['Charge', h('span', { 'data-figure': 'charge' }, withCurrency(money(r.charge)))],
      ['Exact cost', h('span', { 'data-figure': 'cost' }, withCurrency(decimal(r.cost)))],
      ['Latency', duration(r.durationMs)],
      ['First byte', duration(r.ttfbMs)],
      ['Upstream', r.upstream ?? '—'],
      ['Usage provenance', h('span', { 'data-figure': 'provenance' }, r.usage?.provenance ?? 'none')],
      ['End user', r.user ?? '—'],
      ['Detail (private)', r.detail ?? '—'],
      ...responseFacts(r.response),
    ]),
    carryNote(),
    r.review ? h('section', { 'data-part': 'review' }, h('h2', null, r.review.resolution ? 'Review (resolved)' : h('a', { href: '#/reviews' }, 'Flagged for review')), reviewFacts(r.review, { detail: false })) : null,
    h('h2', null, 'Usage'),
    table([{ title: 'Figure', cell: (u) => u[0] }, { title: 'Count', cell: (u) => u[1], class: 'num' }], usageRows(r.usage), 'No usage was reported.'),
    r.attempts?.length ? [h('h2', null, 'Upstream attempts'), table([
      { title: 'Upstream', cell: (a) => a.upstream },
      { title: 'Outcome', cell: (a) => (a.ok ? 'ok' : a.code ?? 'failed') },
      { title: 'Time', cell: (a) => duration(a.ms), class: 'num' },
      { title: 'Detail (private)', cell: (a) => a.detail ?? '—' },
    ], r.attempts)] : null,
  );
}
