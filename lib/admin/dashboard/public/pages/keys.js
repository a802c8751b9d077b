// @ts-check
/** Keys: create one with its grants (its secret shown once, with a copy button), list them with their grants and last use, edit, disable, enable, rotate, revoke. */
import { list, send } from '../api.js';
import { append, field, h, notice, table } from '../dom.js';
import { time } from '../format.js';
import { messageOf, pager, text, whole, writeForm } from '../ui.js';
import { grantColumns, grantFields, grantsOf } from './key-grants.js';

export const title = 'Keys';

/** A table whose cells sit closer and whose headings may wrap: every column fits at 800 px. @param {HTMLElement} el */
const dense = (el) => {
  el.classList.add('dense');
  return el;
};

/** @typedef {import('../shapes').KeyRecord} KeyRecord @typedef {{ key: string, record: KeyRecord, previous?: KeyRecord }} NewKey */

/** The secret of a key just made: shown here once, never stored by the page, gone when dismissed or on leaving the page. @param {string} heading @param {string} secret */
function secretPanel(heading, secret) {
  const input = h('input', { id: 'new-secret', readonly: true, value: secret, spellcheck: 'false', autocomplete: 'off' });
  const said = h('span', { class: 'muted', 'aria-live': 'polite' });
  const copy = h('button', {
    type: 'button', onclick: () => {
      input.select();
      navigator.clipboard.writeText(secret).then(() => { said.textContent = 'Copied.'; }, () => { said.textContent = 'Select the text and copy it.'; });
    },
  }, 'Copy');
  const panel = h('div', { class: 'card secret', role: 'region', 'aria-label': 'New secret', 'data-part': 'secret' },
    h('h2', null, heading),
    h('p', null, 'Store it now: it is shown this once, and only its digest is kept.'),
    h('div', { class: 'inline' }, field('Secret', input), copy, said),
    h('button', { type: 'button', class: 'quiet', onclick: () => panel.remove() }, 'Done'));
  return panel;
}

/** @param {HTMLElement} view @param {import('../ui.js').Ctx} ctx */
export async function render(view, ctx) {
  const callerId = ctx.query.get('callerId') ?? undefined;
  const notes = h('div', { 'data-part': 'notes' });
  const keys = pager((after) => list('keys', { callerId, limit: 50, after }), /** @param {KeyRecord[]} items */ (items) => dense(table([
    { title: 'Key', cell: (k) => [h('code', null, k.keyId), h('small', { class: 'muted block' }, h('code', null, `${k.prefix}…`)), h('small', { class: 'muted block' }, `made ${time(k.createdAt)}`)] },
    { title: 'Caller', cell: (k) => h('a', { href: `#/accounts/${encodeURIComponent(k.callerId)}` }, k.callerId) },
    { title: 'Status', cell: (k) => [h('span', { class: `status ${k.status}` }, k.status), k.expiresAt === null ? null : h('small', { class: 'muted block' }, `until ${time(k.expiresAt)}`)] },
    ...grantColumns,
    { title: 'Last used', cell: (k) => time(k.lastUsedAt), class: 'when col-last-used' }, // date above time: the grants need the room
    { title: h('span', { class: 'visually-hidden' }, 'Actions'), cell: (k) => actions(k), class: 'pinned' },
  ], items, 'No keys yet.')));

  /** Disables or enables a key, then shows the list again (or the refusal). @param {KeyRecord} k @param {'disable' | 'enable'} verb */
  const post = async (k, verb) => {
    try {
      /** @type {KeyRecord} */
      const record = await send('POST', `keys/${k.keyId}/${verb}`);
      notes.replaceChildren(notice('ok', `${k.keyId} is ${record.status}.`));
      await keys.open();
    } catch (err) {
      notes.replaceChildren(notice('error', messageOf(err)));
    }
  };
  /** A confirmation in place of the buttons: rotation asks for the old secret's grace time, revocation for a yes. @param {KeyRecord} k @param {'rotate' | 'revoke'} what */
  const confirm = (k, what) => {
    const grace = h('input', { name: 'grace', inputmode: 'numeric', value: '60', size: 5 });
    const form = writeForm({
      ctx, name: what, legend: what === 'rotate' ? `Rotate ${k.keyId}` : `Revoke ${k.keyId} for good?`, submit: what === 'rotate' ? 'Rotate' : 'Revoke',
      fields: what === 'rotate'
        ? field('The old secret keeps working for (minutes)', grace, '0 stops it now.')
        : h('p', null, 'Calls with this key are refused at once. A revoked key cannot be enabled again.'),
      action: async (data) => {
        if (what === 'revoke') {
          await send('POST', `keys/${k.keyId}/revoke`);
          notes.replaceChildren(notice('ok', `${k.keyId} is revoked.`));
        } else {
          const minutes = whole(data, 'grace', 'Grace time') ?? 0;
          /** @type {NewKey} */
          const out = await send('POST', `keys/${k.keyId}/rotate`, { oldKeyExpiresAt: Date.now() + minutes * 60_000 });
          notes.replaceChildren(secretPanel(`New secret for ${k.callerId} (key ${out.record.keyId}); ${k.keyId} works until ${time(out.previous?.expiresAt)}`, out.key));
        }
        await keys.open();
      },
      cancel: () => form.remove(),
    });
    notes.replaceChildren(form);
    /** @type {HTMLElement | null} */ (form.querySelector('input, button[type=submit]'))?.focus();
  };
  /** Its grants in a form in place of the buttons; saved, the list shows them. @param {KeyRecord} k */
  const edit = (k) => {
    const form = writeForm({
      ctx, name: 'edit-key', legend: `Edit ${k.keyId} (${k.callerId})`, submit: 'Save',
      fields: grantFields(k),
      action: async (data) => {
        await send('PATCH', `keys/${k.keyId}`, grantsOf(data));
        notes.replaceChildren(notice('ok', `${k.keyId} is saved.`));
        await keys.open();
      },
      cancel: () => form.remove(),
    });
    notes.replaceChildren(form);
    /** @type {HTMLElement | null} */ (form.querySelector('input'))?.focus();
  };
  /** @param {KeyRecord} k */
  const actions = (k) => h('div', { class: 'row-actions' },
    k.status !== 'revoked' ? h('button', { type: 'button', class: 'quiet', disabled: !ctx.canWrite, onclick: () => edit(k) }, 'Edit…') : null,
    k.status === 'active' ? h('button', { type: 'button', class: 'quiet', disabled: !ctx.canWrite, onclick: () => post(k, 'disable') }, 'Disable') : null,
    k.status === 'disabled' ? h('button', { type: 'button', class: 'quiet', disabled: !ctx.canWrite, onclick: () => post(k, 'enable') }, 'Enable') : null,
    k.status === 'active' ? h('button', { type: 'button', class: 'quiet', disabled: !ctx.canWrite, onclick: () => confirm(k, 'rotate') }, 'Rotate…') : null,
    k.status !== 'revoked' ? h('button', { type: 'button', class: 'quiet danger', disabled: !ctx.canWrite, onclick: () => confirm(k, 'revoke') }, 'Revoke…') : null);

  const create = writeForm({
    ctx, name: 'create-key', legend: 'New key', submit: 'Create key',
    fields: [field('Caller id', h('input', { name: 'callerId', required: true, autocomplete: 'off' }), 'The account it spends from.'), grantFields()],
    action: async (data) => {
      /** @type {NewKey} */
      const out = await send('POST', 'keys', { callerId: text(data, 'callerId'), ...grantsOf(data) });
      create.reset();
      notes.replaceChildren(secretPanel(`New key ${out.record.keyId} for ${out.record.callerId}`, out.key));
      await keys.open();
    },
  });
  await keys.open();
  append(view, create, notes, h('h2', null, callerId ? `Keys of ${callerId}` : 'All keys, newest first'), keys.box);
}
