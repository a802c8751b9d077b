/**
 * The error a factory throws when it is built wrong (an option misspelt, missing or out of range),
 * each with a stable `ERR_MGW_*` code and a link to its entry in docs/errors.md, the way
 * express-rate-limit does it. A leaf: it imports nothing in lib, so any layer may throw it.
 */

/** Where the codes are documented: the docs ship in the package (`files`), so this path resolves in node_modules. */
export const ERRORS_DOC = 'model-gateway/docs/errors.md';

/** Every construction code, once: its title and what to do (docs/errors.md is checked against this table). */
export const CONFIG_ERRORS = Object.freeze({
  ERR_MGW_UNKNOWN_OPTION: { title: 'Unknown option', fix: 'A factory was given an option it does not know (usually a typo); the message names the nearest known one.' },
  ERR_MGW_MISSING_OPTION: { title: 'Missing option', fix: 'A required option or argument was not given; pass it as the message shows.' },
  ERR_MGW_INVALID_OPTION: { title: 'Invalid option', fix: 'An option has the wrong type, or is not one of the values it takes; the message lists them.' },
  ERR_MGW_INVALID_DURATION: { title: 'Invalid duration', fix: 'A time option (…Ms in milliseconds, …Sec in seconds) must be a whole number within the bound the message names.' },
  ERR_MGW_INVALID_INTEGER: { title: 'Invalid count or size', fix: 'A count or size option (bytes, documents, attempts) must be an integer within the bound the message names.' },
  ERR_MGW_CONFLICTING_OPTIONS: { title: 'Options that disagree', fix: 'Two options cannot be given together, or say different things; drop one or make them agree.' },
  ERR_MGW_STORE_CONTRACT: { title: 'Store outside its contract', fix: 'The store lacks a method the feature needs, or answered in another shape; use MemoryStore or PostgresStore, or run model-gateway/testing against your store.' },
  ERR_MGW_INVALID_ARGUMENT: { title: 'Invalid argument', fix: 'A method was called with an argument outside its contract (a bug in the caller); the message names the field.' },
  ERR_MGW_CATALOG_EMPTY: { title: 'No models', fix: 'Option "models" must be a non-empty array of { id, capability, upstream, pricing }.' },
  ERR_MGW_CATALOG_INVALID_MODEL: { title: 'Invalid model entry', fix: 'An entry of "models" fails its check; the message names the entry (models[i]) and the fix.' },
  ERR_MGW_CATALOG_DUPLICATE_ID: { title: 'Duplicate model id', fix: 'Two entries of "models" share an id; ids must be unique.' },
  ERR_MGW_CATALOG_NAME_COLLISION: { title: 'Model names that collide', fix: 'A name would resolve to two models: an alias that is another id or alias, or two models\' patterns matching one name with neither more specific. The message names both and the name; remove or rename one, or make one pattern more specific.' },
  ERR_MGW_CATALOG_UNKNOWN_UPSTREAM: { title: 'Unknown upstream', fix: 'A catalog edit names an adapter this instance does not have; name one of its upstreams.' },
} satisfies Record<`ERR_MGW_${string}`, { title: string; fix: string }>);

/** A construction code. */
export type ConfigErrorCode = keyof typeof CONFIG_ERRORS;

/** The link to a code's entry. */
export const helpOf = (code: ConfigErrorCode): string => `${ERRORS_DOC}#${code.toLowerCase()}`;

/**
 * A factory built wrong. A TypeError still (`instanceof TypeError` holds); `reason` is the wording
 * alone, `message` adds the code and its link.
 */
export class GatewayConfigError extends TypeError {
  readonly code: ConfigErrorCode;
  /** The message without the code and link (what the admin API and the binary repeat). */
  readonly reason: string;
  /** Where the code is documented. */
  readonly help: string;

  constructor(code: ConfigErrorCode, reason: string) {
    super(`${reason} (${code}, see ${helpOf(code)})`);
    this.name = 'GatewayConfigError';
    this.code = code;
    this.reason = reason;
    this.help = helpOf(code);
  }
}

/** The wording of an error: a GatewayConfigError's reason, any other error's message. */
export const wordingOf = (err: unknown): string => (err instanceof GatewayConfigError ? err.reason : err instanceof Error ? err.message : String(err));
