// @ts-check
/** What the pages share: the context a page renders with, forms that write, and paging by cursor. */
import { h, notice } from './dom.js';

/**
 * @typedef {object} Ctx
 * @property {string | undefined} param  the path segment after the page's name (#/accounts/<param>)
 * @property {URLSearchParams} query  the hash's query (#/requests?status=500)
 * @property {{ name: string, access: 'read' | 'write' }} me
 * @property {boolean} canWrite
 * @property {(hash: string) => void} go  shows another view
 * @property {() => void} refresh  renders this view again
 */

/** A refusal's text, as the API worded it. @param {unknown} err */
export const messageOf = (err) => (err instanceof Error ? err.message : String(err));

/**
 * A form that writes: one submit at a time (its button is disabled while it runs, so a double
 * click sends once), the outcome said inside it. A read-only session sees it disabled; the
 * server refuses its writes anyway.
 * @param {{ ctx: Ctx, legend: string, submit: string, fields: import('./dom.js').Child, action: (data: FormData) => Promise<string | void>, name?: string, cancel?: () => void }} form
 */
export function writeForm({ ctx, legend, submit, fields, action, name, cancel }) {
  const status = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit' }, submit);
  let busy = false;
  const form = h('form', { class: 'write', 'data-form': name },
    h('fieldset', { disabled: !ctx.canWrite }, h('legend', null, legend), fields, h('div', { class: 'actions' }, button, cancel ? h('button', { type: 'button', class: 'quiet', onclick: cancel }, 'Cancel') : null),
      ctx.canWrite ? null : h('small', { class: 'muted' }, 'Your token may only read: changes are refused.')),
    status);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (busy) return;
    busy = true;
    button.disabled = true;
    status.replaceChildren();
    try {
      const done = await action(new FormData(form));
      if (done) status.replaceChildren(notice('ok', done));
    } catch (err) {
      status.replaceChildren(notice('error', messageOf(err)));
    } finally {
      busy = false;
      button.disabled = false;
    }
  });
  return form;
}

/** A text field's value, trimmed; undefined when empty. @param {FormData} data @param {string} name */
export function text(data, name) {
  const value = String(data.get(name) ?? '').trim();
  return value === '' ? undefined : value;
}

/** A whole number a field holds, checked; undefined when empty. @param {FormData} data @param {string} name @param {string} label */
export function whole(data, name, label) {
  const value = text(data, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value))) throw new Error(`${label}: a whole number, digits only.`);
  return Number(value);
}

/**
 * Cursor pages of a list: a table of the current page with Previous and Next buttons. Only one page
 * is ever loaded; `load(after)` fetches the page after a cursor.
 * @template T
 * @param {(after: string | undefined) => Promise<import('./shapes').Page<T>>} load
 * @param {(items: T[]) => HTMLElement} show
 */
export function pager(load, show) {
  const box = h('div', { class: 'pager' });
  /** @type {(string | undefined)[]} */
  const cursors = [undefined];
  const open = async () => {
    const page = await load(cursors[cursors.length - 1]);
    /** @param {() => void} move */
    const turn = (move) => () => {
      move();
      open().catch((err) => box.replaceChildren(notice('error', messageOf(err))));
    };
    const prev = h('button', { type: 'button', class: 'quiet', disabled: cursors.length === 1, onclick: turn(() => cursors.pop()) }, '← Previous');
    const next = h('button', { type: 'button', class: 'quiet', disabled: page.next === null, onclick: turn(() => cursors.push(page.next ?? undefined)) }, 'Next →');
    const more = cursors.length > 1 || page.next !== null;
    box.replaceChildren(show(page.items), more ? h('nav', { class: 'pages', 'aria-label': 'Pages of the list' }, prev, h('span', { class: 'muted' }, `Page ${cursors.length}`), next) : '');
  };
  return { box, open };
}
