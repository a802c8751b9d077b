// @ts-check
/**
 * Models: the live catalog with its prices and where each value comes from; an edit replaces it through PUT /models, whose
 * checks refuse a bad catalog (the old one serves on); a runtime change is reverted to the configuration.
 */
import { list, send } from '../api.js';
import { append, field, h, notice, table } from '../dom.js';
import { currencyLabel, heading, PRICE_FIELDS, price } from '../format.js';
import { messageOf, writeForm } from '../ui.js';

export const title = 'Models';

/** @typedef {import('../shapes').ModelView} ModelView */
/** @typedef {import('../shapes').OverrideView} OverrideView */

/** @typedef {NonNullable<ModelView['members']>[number]} MemberView */

/**
 * A price as set, or the default in effect when it is not (marked beneath it, to keep the column narrow); a price with no
 * default left out (null in effect) bills nothing: its usage is flagged for review.
 * @param {ModelView['pricing']} pricing @param {ModelView['prices']} prices @param {string} key
 */
const priceOf = (pricing, prices, key) => {
  if (pricing?.[key] !== undefined) return price(pricing[key]);
  const inEffect = prices?.[key];
  if (inEffect === null && prices) return h('span', { class: 'muted', title: 'Not set: this usage is flagged for review, never billed' }, '—', h('small', { class: 'default' }, 'review'));
  return inEffect !== undefined ? h('span', { class: 'muted' }, inEffect, h('small', { class: 'default' }, 'default')) : '—';
};

/** A price field as a heading that may wrap before each capital ("cache", "Write5m"): the catalog's columns fit a laptop's width. @param {string} key */
const breakable = (key) => key.split(/(?=[A-Z])/).flatMap((part, i) => (i === 0 ? [part] : [h('wbr'), part]));

/**
 * A model's price: one when every request of it is charged the same; else, a failover group's, each member's in effect
 * (its own, else the model's, else its format's default) with the member beneath it: what a request it serves is charged.
 * @param {ModelView} m @param {string} key
 */
const priceCell = (m, key) => (m.members && m.prices === null ? m.members.map((x) => memberPrice(x, x.pricing ?? m.pricing, key)) : priceOf(m.pricing, m.prices, key));

/** A failover member's price in effect, the member beneath it (muted, "default" in its tooltip, when no price is set for it). @param {MemberView} x @param {ModelView['pricing']} pricing @param {string} key */
function memberPrice(x, pricing, key) {
  const set = pricing?.[key] !== undefined;
  const value = x.prices?.[key] ?? '—';
  return h('div', { class: 'member-price', ...(set ? {} : { title: `${x.upstream}: not set, the default of its format` }) }, set ? value : h('span', { class: 'muted' }, value), h('small', { class: 'block' }, x.upstream));
}

/** A model's id, and the other names it answers to beneath it. @param {ModelView} m */
const modelCell = (m) => [h('code', null, m.id), ...[...m.aliases ?? [], ...m.patterns ?? []].map((name) => h('small', { class: 'block' }, name))];

/** The upstream: its name; a failover group's members beneath, each with the model it is sent. @param {ModelView} m */
const upstreamCell = (m) => (m.members
  ? [m.upstream, ...m.members.map((/** @type {MemberView} */ x) => h('small', { class: 'block' }, `${x.upstream} (${x.upstreamModel})`))]
  : `${m.upstream}${m.upstreamModel !== m.id ? ` (${m.upstreamModel})` : ''}`);

/** Names typed in a field, split at commas and spaces. @param {FormDataEntryValue | null} typed */
const namesOf = (typed) => String(typed ?? '').split(/[\s,]+/).filter((name) => name !== '');

/** What the prices are per: the unit most are quoted in, then the others by field ("per million tokens (webSearch: per 1,000 requests)"). */
function units() {
  /** @type {Map<string, string[]>} */
  const byUnit = new Map();
  for (const [key, label] of PRICE_FIELDS) {
    const unit = label.slice(label.lastIndexOf(', per ') + 2);
    byUnit.set(unit, [...byUnit.get(unit) ?? [], key]);
  }
  const [most, ...others] = [...byUnit].sort((a, b) => b[1].length - a[1].length);
  return `${most?.[0] ?? ''}${others.length > 0 ? ` (${others.map(([unit, keys]) => `${keys.join(', ')}: ${unit}`).join('; ')})` : ''}`;
}

/** @param {HTMLElement} view @param {import('../ui.js').Ctx} ctx */
export async function render(view, ctx) {
  /** @type {{ items: ModelView[] }} */
  const { items: models } = await list('models', { limit: 1000 });
  /** @type {{ items: OverrideView[] }} */
  const { items: overrides } = await list('models/overrides');
  const notes = h('div', { 'aria-live': 'polite' });
  /** Back to the configuration (the store's runtime change of the model dropped on every instance). @param {string} id */
  const revert = async (id) => {
    try {
      await send('DELETE', `models/${encodeURIComponent(id)}/override`);
      ctx.refresh();
    } catch (err) {
      notes.replaceChildren(notice('error', messageOf(err)));
    }
  };
  const revertButton = (/** @type {string} */ id) => h('button', { type: 'button', class: 'quiet', disabled: !ctx.canWrite, onclick: () => revert(id) }, 'Revert');
  /** Where a model's values come from: the configuration, or a runtime change (the configured values it hides in its title). @param {ModelView} m */
  const sourceCell = (m) => {
    const o = m.override;
    if (!o) return h('span', { class: 'muted' }, 'configured');
    const what = o.kind === 'add' ? 'added at runtime' : `runtime: ${Object.keys(o.fields).join(', ')}`;
    return h('span', null, h('span', { title: o.configured ? `configured: ${JSON.stringify(o.configured)}` : `by ${o.actor}` }, what), ' ', revertButton(m.id));
  };
  // Runtime changes the table cannot show: withdrawn models, and changes out of use (their model left the configuration).
  const unseen = overrides.filter((o) => o.kind === 'remove' || !o.inUse);
  // Every price of the table (one not set shows the default in effect), and any other a model holds.
  const labels = new Map(PRICE_FIELDS.map(([key, label]) => [key, heading(label)]));
  const held = [...new Set(models.flatMap((m) => Object.keys(m.pricing ?? {})))];
  const shown = [...labels.keys(), ...held.filter((key) => !labels.has(key))];
  const agentReady = models.some((m) => 'agentReady' in m);
  const editor = h('div', { 'data-part': 'editor' });
  /** Replaces the catalog with `next`; refused, the message shows and nothing changed. @param {unknown} next */
  const replace = async (next) => {
    await send('PUT', 'models', { models: next });
    ctx.refresh();
  };

  /** The prices a model's form edits: the table's, and any other it holds. @param {ModelView} m */
  const fields = (m) => [...labels.keys(), ...Object.keys(m.pricing ?? {}).filter((key) => !labels.has(key))];

  /** @param {ModelView} m */
  const edit = (m) => {
    const own = (m.members ?? []).filter((x) => x.pricing !== null).map((x) => x.upstream);
    const form = writeForm({
      ctx, name: 'edit-model', legend: `Edit ${m.id}`, submit: 'Save catalog', cancel: () => form.remove(),
      fields: [
        h('p', { class: 'muted' }, 'Prices in minor units, whole or with up to 6 decimals. Empty: not set (the upstream format\'s default; search units without a price are flagged for review).'),
        own.length > 0 ? h('p', { class: 'muted' }, `Failover members with prices of their own keep them (${own.join(', ')}): these bill the requests the others serve.`) : null,
        h('div', { class: 'grid' }, fields(m).map((key) => field(labels.get(key) ?? key, h('input', { name: `price.${key}`, value: m.pricing?.[key] ?? undefined, placeholder: m.prices?.[key] ? `default ${m.prices[key]}` : m.prices?.[key] === null ? 'not set: review' : undefined, autocomplete: 'off' })))),
        field('Other names (aliases)', h('input', { name: 'aliases', value: (m.aliases ?? []).join(', '), autocomplete: 'off' }), 'Exact names callers may ask for it by, comma-separated.'),
        field('Name patterns', h('input', { name: 'patterns', value: (m.patterns ?? []).join(', '), autocomplete: 'off' }), '"*" stands for any run of characters: claude-opus-*.'),
        h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'free', checked: m.free }), ' Free of charge'),
        'agentReady' in m ? h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'agentReady', checked: m.agentReady }), ' Agent-ready') : null,
      ],
      action: async (data) => {
        /** @type {Record<string, unknown>} */
        const pricing = {};
        for (const key of fields(m)) {
          const typed = String(data.get(`price.${key}`) ?? '').trim();
          const before = m.pricing?.[key];
          if (typed !== '') pricing[key] = before !== undefined && String(before) === typed ? before : typed; // unchanged keeps its form
        }
        const changed = {
          ...m, pricing: Object.keys(pricing).length > 0 ? pricing : null, aliases: namesOf(data.get('aliases')), patterns: namesOf(data.get('patterns')),
          free: data.get('free') === 'on', ...('agentReady' in m ? { agentReady: data.get('agentReady') === 'on' } : {}),
        };
        await replace(models.map((x) => (x.id === m.id ? changed : x)));
      },
    });
    editor.replaceChildren(form);
    /** @type {HTMLElement | null} */ (form.querySelector('input'))?.focus();
  };

  const json = writeForm({
    ctx, name: 'catalog-json', legend: 'The whole catalog as JSON', submit: 'Replace catalog',
    fields: [field('Models', h('textarea', { name: 'models', rows: 12, spellcheck: 'false' }, JSON.stringify(models, null, 2)), 'Add, remove or change models; upstreams by adapter name.')],
    action: async (data) => {
      let next;
      try {
        next = JSON.parse(String(data.get('models')));
      } catch (err) {
        throw new Error(`Models: not JSON (${err instanceof Error ? err.message : String(err)}).`);
      }
      await replace(next);
    },
  });

  // What a model is comes before its prices, and Edit stays in view at the right: on a narrow screen the prices scroll between them.
  const catalog = table([
    { title: 'Model', cell: modelCell },
    { title: 'Kind', cell: (m) => m.capability },
    { title: 'Upstream', cell: upstreamCell },
    { title: 'Max output', cell: (m) => m.maxOutputTokens ?? '—', class: 'num col-max-output' },
    { title: 'Free', cell: (m) => (m.free ? 'yes' : 'no') },
    ...(agentReady ? [{ title: 'Agent-ready', cell: (/** @type {ModelView} */ m) => (m.agentReady ? 'yes' : 'no') }] : []),
    ...shown.map((key) => ({ title: breakable(key), cell: (/** @type {ModelView} */ m) => priceCell(m, key), class: `num price-${key}` })),
    { title: 'Source', cell: sourceCell },
    { title: h('span', { class: 'visually-hidden' }, 'Actions'), cell: (m) => h('button', { type: 'button', class: 'quiet', disabled: !ctx.canWrite, onclick: () => edit(m) }, 'Edit…'), class: 'pinned' },
  ], models, 'The catalog is empty.');
  catalog.classList.add('dense');

  append(view,
    h('p', { class: 'muted', 'data-part': 'units' }, `Prices in ${currencyLabel()} ${units()}; "default": not set, the upstream format's default in effect; "review": not set, that usage is flagged for review. A failover group whose members are charged differently shows each member's prices, the member beneath. An edit here is a runtime change kept by the store: it wins over the configured value on every instance until reverted.`),
    notes,
    catalog,
    editor,
    unseen.length > 0 ? h('section', { 'data-part': 'runtime-changes' }, h('h3', null, 'Other runtime changes'), table([
      { title: 'Model', cell: (o) => h('code', null, o.model) },
      { title: 'Change', cell: (o) => (o.kind === 'remove' ? 'withdrawn' : o.kind === 'add' ? 'added' : `edit: ${Object.keys(o.fields).join(', ')}`) },
      { title: 'State', cell: (o) => (o.inUse ? 'in use' : `out of use: ${o.reason}`) },
      { title: 'By', cell: (o) => o.actor },
      { title: '', cell: (o) => revertButton(o.model) },
    ], unseen)) : null,
    h('details', null, h('summary', null, 'Edit the whole catalog as JSON'), json),
    models.length >= 1000 ? notice('error', 'Only the first 1000 models are shown.') : null,
  );
}
