/** JSON Schemas of usage and pricing, derived from the one table of figures (lib/billing/figures.ts). */
import { FIGURE_NAMES, PRICE_FIELDS, priceUnit, REVIEW_PRICES } from './figures';

/** A recorded usage: every figure, and where it came from. */
export const usageSchema = {
  type: 'object',
  required: [...FIGURE_NAMES, 'provenance'],
  properties: {
    ...Object.fromEntries(FIGURE_NAMES.map((name) => [name, { type: 'integer', minimum: 0 }])),
    provenance: { enum: ['confirmed', 'partial', 'units_only', 'implausible', 'none'] },
  },
};

/** Every price in effect, defaults applied: decimal strings of minor units; null for one with no default left out (its figure is flagged for review). */
export const pricesSchema = {
  type: ['object', 'null'],
  required: PRICE_FIELDS,
  properties: Object.fromEntries(PRICE_FIELDS.map((field) => [field, { type: REVIEW_PRICES.includes(field) ? ['string', 'null'] : 'string' }])),
};

/** A model's prices: `input` required, each a number or a decimal string (the catalog checks the rest, naming the field). */
export const pricingSchema = {
  type: 'object',
  required: ['input'],
  additionalProperties: false,
  properties: Object.fromEntries(PRICE_FIELDS.map((field) => [field, { type: ['number', 'string'], description: `minor units ${priceUnit(field)}` }])),
};
