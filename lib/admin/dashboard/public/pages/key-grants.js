// @ts-check
/** What a key grants (its models, limits and metadata): shown in the keys table, edited in one set of fields, read back as the admin API takes it. */
import { field, h } from '../dom.js';
import { count } from '../format.js';
import { text, whole } from '../ui.js';

/** @typedef {import('../shapes').KeyRecord} KeyRecord @typedef {{ models: string[] | null, limits: Record<string, number> | null, metadata: Record<string, string> | null }} Grants */

/** The limits a key may set, as the API names them, with their labels. */
const LIMITS = /** @type {const} */ ([['rpm', 'Requests per minute'], ['tpm', 'Tokens per minute'], ['concurrency', 'Requests at once']]);

/** One line per item, or a muted word when there is none. @param {string[]} lines @param {string} none */
const lines = (lines, none) => (lines.length === 0 ? h('div', { class: 'muted' }, none) : lines.map((line) => h('div', null, line)));

/** The table's columns of grants. @type {import('../dom.js').Column<KeyRecord>[]} */
export const grantColumns = [
  { title: 'Models', cell: (k) => lines(k.models ?? [], 'every model'), class: 'col-models' },
  { title: 'Limits', cell: (k) => lines(LIMITS.filter(([key]) => k.limits?.[key] !== undefined).map(([key]) => `${key} ${count(/** @type {number} */ (k.limits?.[key]))}`), 'defaults'), class: 'col-limits' },
  { title: 'Metadata', cell: (k) => lines(Object.entries(k.metadata ?? {}).map(([name, value]) => `${name}=${value}`), '—'), class: 'col-metadata' },
];

/**
 * The fields that set a key's grants, filled from `k` when it is given.
 * @param {KeyRecord} [k]
 */
export const grantFields = (k) => [
  field('Models', h('input', { name: 'models', value: k?.models?.join(', '), autocomplete: 'off' }), 'Comma-separated ids; empty allows every model.'),
  h('div', { class: 'grid roomy' }, LIMITS.map(([key, label]) => field(`${label} (${key})`, h('input', { name: key, inputmode: 'numeric', value: k?.limits?.[key], autocomplete: 'off' })))),
  h('small', { class: 'muted' }, 'Limits: empty takes the gateway\'s default; 0 is unlimited.'),
  field('Metadata', h('textarea', { name: 'metadata', rows: 3, spellcheck: 'false' }, Object.entries(k?.metadata ?? {}).map(([name, value]) => `${name}=${value}`).join('\n')),
    'One name=value a line; free text the gateway keeps with the key.'),
];

/** Metadata from its lines, each "name=value"; a line that is not one is refused, naming it. @param {string} typed @returns {Record<string, string> | null} */
function metadataOf(typed) {
  /** @type {Record<string, string>} */
  const out = Object.create(null); // "__proto__" is a name like any other
  for (const [i, line] of typed.split('\n').entries()) {
    if (line.trim() === '') continue;
    const at = line.indexOf('=');
    const name = line.slice(0, at).trim();
    if (at < 1 || name === '') throw new Error(`Metadata, line ${i + 1}: write name=value.`);
    if (Object.hasOwn(out, name)) throw new Error(`Metadata, line ${i + 1}: "${name}" is named twice.`);
    out[name] = line.slice(at + 1).trim();
  }
  return Object.keys(out).length > 0 ? out : null;
}

/** The grants the fields hold, as POST /keys and PATCH /keys/:keyId take them (null: none set). @param {FormData} data @returns {Grants} */
export function grantsOf(data) {
  const models = text(data, 'models')?.split(',').map((m) => m.trim()).filter(Boolean) ?? [];
  /** @type {Record<string, number>} */
  const limits = {};
  for (const [key, label] of LIMITS) {
    const value = whole(data, key, label);
    if (value !== undefined) limits[key] = value;
  }
  return {
    models: models.length > 0 ? models : null,
    limits: Object.keys(limits).length > 0 ? limits : null,
    metadata: metadataOf(String(data.get('metadata') ?? '')),
  };
}
