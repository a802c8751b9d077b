// @ts-check
/** DOM from data: text always goes in as text nodes and attributes as strings, never as HTML, so nothing shown can run. */

/** @typedef {Node | string | number | bigint | null | undefined | false | unknown[]} Child  (arrays nest) */
/** @typedef {Record<string, unknown>} Props */

/**
 * @param {Element} el
 * @param {Props | null | undefined} props  attributes; `on<event>` functions become listeners; true sets, false/null/undefined omit
 */
function apply(el, props) {
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    else el.setAttribute(name, value === true ? '' : String(value));
  }
}

/** @param {unknown[]} children @returns {(Node | string)[]} */
function nodes(children) {
  const out = /** @type {(Node | string)[]} */ ([]);
  for (const c of children) {
    if (Array.isArray(c)) out.push(...nodes(c));
    else if (c instanceof Node) out.push(c);
    else if (c !== null && c !== undefined && c !== false) out.push(String(c));
  }
  return out;
}

/**
 * An HTML element: h('button', { type: 'button', onclick }, 'Save').
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag @param {Props | null} [props] @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  apply(el, props);
  el.append(...nodes(children));
  return el;
}

/**
 * An SVG element, for charts.
 * @param {string} tag @param {Props | null} [props] @param {...Child} children
 * @returns {SVGElement}
 */
export function svg(tag, props, ...children) {
  const el = /** @type {SVGElement} */ (document.createElementNS('http://www.w3.org/2000/svg', tag));
  apply(el, props);
  el.append(...nodes(children));
  return el;
}

/** Appends children (text, nodes, nested arrays; null and false skipped). @param {Element} el @param {...Child} children */
export const append = (el, ...children) => el.append(...nodes(children));

let fieldCount = 0;

/**
 * A labelled control: the label names it for screen readers and a click on it focuses it.
 * @param {string} label @param {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} control @param {string} [hint]
 */
export function field(label, control, hint) {
  if (!control.id) control.id = `f${++fieldCount}`;
  const help = hint ? h('small', { id: `${control.id}-hint`, class: 'muted' }, hint) : null;
  if (help) control.setAttribute('aria-describedby', help.id);
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, help);
}

/**
 * @template T
 * @typedef {{ title: Child, cell: (row: T) => Child, class?: string }} Column  `class` goes on the heading and every cell
 */

/**
 * A table that scrolls sideways on a narrow screen instead of widening the page.
 * @template T
 * @param {Column<T>[]} columns @param {readonly T[]} rows @param {string} [empty]  what an empty table says
 */
export function table(columns, rows, empty = 'Nothing here yet.') {
  if (rows.length === 0) return h('p', { class: 'muted empty' }, empty);
  return h('div', { class: 'table-wrap' }, h('table', null,
    h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col', class: c.class }, c.title)))),
    h('tbody', null, rows.map((r) => h('tr', null, columns.map((c) => h('td', { class: c.class }, c.cell(r))))))));
}

/** A term and description list from [term, value] pairs. @param {[string, Child][]} pairs */
export const facts = (pairs) => h('dl', { class: 'facts' }, pairs.map(([term, value]) => h('div', null, h('dt', null, term), h('dd', null, value))));

/** A message for the operator, read out by screen readers. @param {'error' | 'ok'} kind @param {string} text */
export const notice = (kind, text) => h('p', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
