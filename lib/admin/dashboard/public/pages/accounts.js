// @ts-check
/** Accounts: every account lowest balance first; one account's balance, holds and ledger, credits or debits sent once, and erasing its stored responses. */
import { ApiError, get, list, newKey, send } from '../api.js';
import { append, facts, field, h, notice, table } from '../dom.js';
import { currencyLabel, money, moneyHeading, time, usageFor, withCurrency } from '../format.js';
import { pager, text, whole, writeForm } from '../ui.js';

export const title = 'Accounts';

/** @typedef {import('../shapes').AccountRow} AccountRow @typedef {import('../shapes').LedgerEntry} LedgerEntry @typedef {import('../shapes').Account} Account */

/** @param {HTMLElement} view @param {import('../ui.js').Ctx} ctx */
export async function render(view, ctx) {
  if (ctx.param !== undefined) return account(view, ctx, ctx.param);
  const find = h('form', { class: 'inline', 'data-form': 'find-account' },
    field('Caller id', h('input', { name: 'callerId', required: true, autocomplete: 'off' })),
    h('button', { type: 'submit' }, 'Open'));
  find.addEventListener('submit', (e) => {
    e.preventDefault();
    ctx.go(`#/accounts/${encodeURIComponent(String(new FormData(find).get('callerId')).trim())}`);
  });
  const accounts = pager((after) => list('accounts', { limit: 50, after }), /** @param {AccountRow[]} items */ (items) => table([
    { title: 'Caller', cell: (a) => h('a', { href: `#/accounts/${encodeURIComponent(a.callerId)}` }, a.callerId) },
    { title: moneyHeading('Balance'), cell: (a) => money(a.balance), class: 'num' },
    { title: moneyHeading('Held'), cell: (a) => money(a.held), class: 'num' },
  ], items, 'No accounts yet.'));
  await accounts.open();
  append(view, find, h('h2', null, 'Lowest balance first'), accounts.box);
}

/** The account, or null when the caller has none yet. @param {string} path @returns {Promise<Account | null>} */
async function accountOf(path) {
  try {
    return await get(path);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/** @param {HTMLElement} view @param {import('../ui.js').Ctx} ctx @param {string} callerId */
async function account(view, ctx, callerId) {
  const path = `accounts/${encodeURIComponent(callerId)}`;
  const found = await accountOf(path);
  /** @param {Account} a */
  const summary = (a) => facts([
    ['Balance', [h('strong', { 'data-figure': 'balance' }, money(a.balance)), ` ${currencyLabel()}`]],
    ['Held by requests in flight', withCurrency(money(a.held))],
    ['Available', withCurrency(money(a.balance - a.held))],
    ['Carried below one unit', withCurrency(a.carry)],
    ['Ledger sum', withCurrency(money(a.ledger))],
  ]);
  const shown = h('div', { 'data-part': 'account' }, found ? summary(found) : notice('error', `${callerId} has no account yet: a credit with "Open the account" opens it.`));
  const ledger = pager((after) => list(`${path}/ledger`, { limit: 50, after }), /** @param {LedgerEntry[]} items */ (items) => table([
    { title: 'Time', cell: (r) => time(r.at), class: 'time' },
    { title: 'Kind', cell: (r) => r.kind },
    { title: moneyHeading('Amount'), cell: (r) => money(r.amount, true), class: 'num' },
    // Each figure by its short name (every label in the title); a narrow screen shows the start of the request id (the link and its title hold all of it).
    { title: 'For', cell: (r) => usageFor(r.usage), class: 'col-for' },
    { title: 'Request', cell: (r) => (r.requestId ? h('a', { href: `#/requests/${encodeURIComponent(r.requestId)}`, title: r.requestId, class: 'id' }, h('code', null, r.requestId)) : '—') },
  ], items, 'No ledger rows yet.'));

  // One key per intended movement: a retry or a second click of the same one moves money once.
  let idempotencyKey = newKey();
  const credit = writeForm({
    ctx, name: 'credit', legend: 'Credit or debit', submit: 'Apply',
    fields: [
      h('div', { class: 'choice', role: 'radiogroup', 'aria-label': 'Direction' },
        h('label', null, h('input', { type: 'radio', name: 'direction', value: 'credit', checked: true }), ' Credit (top up)'),
        h('label', null, h('input', { type: 'radio', name: 'direction', value: 'debit' }), ' Debit')),
      field('Amount', h('input', { name: 'amount', inputmode: 'numeric', pattern: '[0-9]*', required: true, autocomplete: 'off' }), `Whole ${currencyLabel()}, as the ledger counts them.`),
      found ? null : h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'createAccount', checked: true }), ' Open the account'),
    ],
    action: async (data) => {
      const amount = whole(data, 'amount', 'Amount');
      if (!amount) throw new Error('Amount: more than 0.');
      const signed = text(data, 'direction') === 'debit' ? -amount : amount;
      const body = { amount: signed, ...(data.get('createAccount') === 'on' ? { createAccount: true } : {}) };
      /** @type {{ applied: boolean, account: Account }} */
      const out = await send('POST', `${path}/credits`, body, { 'idempotency-key': idempotencyKey });
      if (!found) return ctx.refresh(); // opened: shown with its ledger
      idempotencyKey = newKey();
      credit.reset();
      shown.replaceChildren(summary(out.account));
      await ledger.open();
      return `${out.applied ? 'Applied' : 'Already applied'}: ${withCurrency(money(signed, true))}. Balance ${withCurrency(money(out.account.balance))}.`;
    },
  });
  credit.addEventListener('input', () => { idempotencyKey = newKey(); }); // other figures: another movement
  if (found) await ledger.open();
  view.querySelector('h1')?.append(h('span', { class: 'muted' }, ` · ${callerId}`));
  append(view, h('p', null, h('a', { href: '#/accounts' }, '← All accounts')), shown, credit, found ? [eraseResponses(ctx, path, callerId), h('h2', null, 'Ledger'), ledger.box] : null);
}

/**
 * "Delete stored responses…": asks first, then deletes every stored Responses API response of the account (audited with the count).
 * @param {import('../ui.js').Ctx} ctx @param {string} path @param {string} callerId
 */
function eraseResponses(ctx, path, callerId) {
  const box = h('div', { 'data-part': 'stored-responses' });
  const ask = () => {
    const form = writeForm({
      ctx, name: 'delete-responses', legend: `Delete every stored response of ${callerId}?`, submit: 'Delete',
      fields: h('p', null, 'Their previous_response_id and GET /v1/responses/{id} then answer 404. The request log keeps its lines.'),
      action: async () => {
        /** @type {{ deleted: number }} */
        const out = await send('DELETE', `${path}/responses`);
        box.replaceChildren(opener, notice('ok', `Deleted ${out.deleted.toLocaleString('en-US')} stored ${out.deleted === 1 ? 'response' : 'responses'}.`));
      },
      cancel: () => box.replaceChildren(opener),
    });
    box.replaceChildren(form);
    /** @type {HTMLElement | null} */ (form.querySelector('button[type=submit]'))?.focus();
  };
  const opener = h('p', null, h('button', { type: 'button', class: 'quiet danger', disabled: !ctx.canWrite, onclick: ask }, 'Delete stored responses…'));
  box.append(opener);
  return box;
}
