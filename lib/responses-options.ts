/** The `responses` option of createGatewayRouter (the response store: on or off, retention, size bound; the reasoning secret), checked and resolved once. */
import { randomBytes } from 'node:crypto';
import { GATEWAY_DEFAULTS } from './foundation/defaults';
import { MIN_REASONING_SECRET } from './formats/openai-responses';
import { GatewayConfigError } from './foundation/config-errors';
import { checkKnownOptions } from './foundation/check-options';
import { RESPONSE_STORE_METHODS, type ResponseStore } from './stores/responses';
import type { GatewayStore } from './stores/types';

/** Storing Responses API responses (for `previous_response_id` and GET/DELETE /v1/responses/{id}). Off unless the operator turns it on. */
export interface ResponsesOptions {
  /** Keep responses in the store's `responses` (MemoryStore and PostgresStore have one). Default: false. */
  store?: boolean;
  /** Days a stored response is kept, from its creation. Default: 30. */
  retentionDays?: number;
  /** Largest response stored, in bytes of its JSON (response object, input items, instructions, tools); a larger one is answered `store: false`. Default: 1048576. */
  maxBytes?: number;
  /**
   * The secret (at least 32 characters) that authenticates the reasoning content handed to
   * Responses clients, which they replay (Codex on every turn): set the same one on every instance.
   * Default: a random one per router, so content another instance issued, or this one before a
   * restart, does not authenticate (docs/translation.md#reasoning).
   */
  reasoningSecret?: string;
}

/** Defaults and bounds of the option (the binary's config schema uses them too). */
export const RESPONSES_DEFAULTS = GATEWAY_DEFAULTS.responses;
export const RESPONSES_BOUNDS = Object.freeze({ retentionDays: { min: 1, max: 3650 }, maxBytes: { min: 1024, max: 67_108_864 } });

/** The option resolved: `store` is the ResponseStore to use, undefined when storing is off. */
export interface ResolvedResponses {
  readonly store: ResponseStore | undefined;
  readonly retentionDays: number;
  readonly maxBytes: number;
  /** The reasoning secret given, or the random one made for this router. */
  readonly reasoningSecret: string;
}

const NAMES = Object.keys({ store: true, retentionDays: true, maxBytes: true, reasoningSecret: true } satisfies Record<keyof ResponsesOptions, true>);

function bounded(name: 'retentionDays' | 'maxBytes', value: unknown, unit: string): number {
  const { min, max } = RESPONSES_BOUNDS[name];
  if (value === undefined) return RESPONSES_DEFAULTS[name];
  if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max) {
    throw new GatewayConfigError('ERR_MGW_INVALID_INTEGER', `createGatewayRouter: option "responses.${name}" must be an integer of ${unit} from ${min} to ${max} (default ${RESPONSES_DEFAULTS[name]}), e.g. responses: { ${name}: ${RESPONSES_DEFAULTS[name]} }.`);
  }
  return value as number;
}

/** Checks `responses` against the gateway's store; every message names the option and the fix. */
export function resolveResponses(options: ResponsesOptions | undefined, store: GatewayStore): ResolvedResponses {
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options))) {
    throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'createGatewayRouter: option "responses" must be an object, e.g. { store: true, retentionDays: 30, maxBytes: 1048576 }.');
  }
  checkKnownOptions('createGatewayRouter: option "responses"', options ?? {}, NAMES);
  const on = options?.store ?? RESPONSES_DEFAULTS.store;
  if (typeof on !== 'boolean') throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', 'createGatewayRouter: option "responses.store" must be true or false (default false).');
  const retentionDays = bounded('retentionDays', options?.retentionDays, 'days');
  const maxBytes = bounded('maxBytes', options?.maxBytes, 'bytes');
  const secret = options?.reasoningSecret;
  if (secret !== undefined && (typeof secret !== 'string' || secret.length < MIN_REASONING_SECRET)) {
    throw new GatewayConfigError('ERR_MGW_INVALID_OPTION', `createGatewayRouter: option "responses.reasoningSecret" must be a secret of at least ${MIN_REASONING_SECRET} characters, the same on every instance (e.g. from openssl rand -hex 32).`);
  }
  const reasoningSecret = secret ?? randomBytes(32).toString('base64url');
  let responses: ResponseStore | undefined;
  const candidate = (store as { responses?: Partial<Record<string, unknown>> }).responses;
  if (on) {
    const missing = RESPONSE_STORE_METHODS.filter((m) => typeof candidate?.[m] !== 'function');
    if (missing.length > 0) {
      throw new GatewayConfigError('ERR_MGW_STORE_CONTRACT', `createGatewayRouter: option "responses.store" is true but the store has no "responses" implementing ${missing.join(', ')} (MemoryStore and PostgresStore have one; or set responses.store to false).`);
    }
    responses = candidate as unknown as ResponseStore;
  }
  return Object.freeze({ store: responses, retentionDays, maxBytes, reasoningSecret });
}
