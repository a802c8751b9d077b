// @ts-check
/** What a charge is beside an exact cost (the caller's carried remainder), and what a review says: why it was flagged, what its observed usage costs. */
import { facts, h } from './dom.js';
import { currencyLabel, decimal, money, withCurrency } from './format.js';
import { USAGE_FIGURES } from './figures.js';

/** @typedef {import('./shapes').ReviewView} ReviewView */

/** Why a charge differs from its exact cost: the caller's remainder carried from one request to the next (README, Exact money). */
export const carryNote = () => h('p', { class: 'muted note', 'data-part': 'carry-note' },
  `A charge is in whole ${currencyLabel()}; an exact cost is not. Each settlement adds its exact cost to the caller's carried `
  + 'remainder (under one unit), charges the whole units and carries the rest to the caller\'s next request: one request may be '
  + 'charged a unit more or less than its cost, and a caller\'s total charge is its total exact cost rounded down.');

/** A figure's label as the page writes it. @param {string} name */
const labelOf = (name) => USAGE_FIGURES.find(([key]) => key === name)?.[1] ?? name;

/**
 * What a review says: why it was flagged (with the log line's private detail), and its observed usage at the model's prices
 * now (exact, the whole charge, what would still be charged, the figures the model does not price); `detail: false` where the
 * request's own detail shows already.
 * @param {ReviewView} r @param {{ detail?: boolean }} [options]
 */
export function reviewFacts(r, { detail = true } = {}) {
  const o = r.observed;
  return h('div', { class: 'review-facts', 'data-part': 'review-facts' },
    facts([
      ['Why flagged', h('span', { 'data-figure': 'flagged' }, r.flagged)],
      ...(detail ? [/** @type {[string, import('./dom.js').Child]} */ (['Detail (private)', h('span', { 'data-figure': 'review-detail' }, r.detail ?? '—')])] : []),
      ...(o === null ? [/** @type {[string, string]} */ (['Observed usage costs', 'unknown: the model is no longer in the catalog'])] : [
        /** @type {[string, import('./dom.js').Child]} */ (['Observed usage costs', h('span', { 'data-figure': 'observed-cost' }, withCurrency(decimal(o.cost)))]),
        /** @type {[string, import('./dom.js').Child]} */ (['As a whole charge', h('span', { 'data-figure': 'observed-charge' }, o.charge === null ? 'too large to charge' : withCurrency(money(o.charge)))]),
        /** @type {[string, import('./dom.js').Child]} */ (['Still to charge to bill it', h('span', { 'data-figure': 'outstanding' }, o.outstanding === null ? '—' : withCurrency(money(o.outstanding)))]),
        ...(o.unpriced.length > 0 ? [/** @type {[string, string]} */ (['Not priced by the model', o.unpriced.map(labelOf).join(', ')])] : []),
      ]),
    ]),
    h('p', { class: 'muted note' }, 'Observed usage at the model\'s prices now; the whole charge rounds down, so charging it never takes more than the cost (a resolution carries no remainder).'));
}
