/** Credits and debits a host makes: checked once, idempotent by key on every store. */
import { GatewayConfigError } from '../foundation/config-errors';
import { GatewayError } from '../foundation/errors';

/**
 * A credit (positive) or debit (negative) of a caller's balance, in integer minor units. The
 * caller must have an account (made by addKey, createKey, or a credit with `createAccount`):
 * otherwise it is refused with a `not_found_error`, so a mistyped caller id moves no money.
 */
export interface Credit {
  callerId: string;
  amount: number;
  /** Makes the change exactly-once: the same key with the same caller and amount moves money once. */
  idempotencyKey: string;
  /** Opens the account if the caller has none. Default: false. */
  createAccount?: boolean;
}

/** The outcome: `applied` false when the key had moved this money before (nothing changed now). */
export interface CreditResult {
  callerId: string;
  amount: number;
  idempotencyKey: string;
  applied: boolean;
}

/** Checks a credit's fields; throws a TypeError that names the field. Returns the change without `createAccount`. */
export function checkCredit(credit: Credit, store: string): Omit<CreditResult, 'applied'> {
  const { callerId, amount, idempotencyKey, createAccount } = credit ?? ({} as Credit);
  if (typeof callerId !== 'string' || callerId.length === 0) throw new GatewayConfigError('ERR_MGW_INVALID_ARGUMENT', `${store}.credit: callerId must be a non-empty string.`);
  if (!Number.isSafeInteger(amount) || amount === 0) throw new GatewayConfigError('ERR_MGW_INVALID_ARGUMENT', `${store}.credit: amount must be a non-zero integer of minor units (negative for a debit).`);
  if (typeof idempotencyKey !== 'string' || idempotencyKey.length === 0 || idempotencyKey.length > 255) {
    throw new GatewayConfigError('ERR_MGW_INVALID_ARGUMENT', `${store}.credit: idempotencyKey must be a string of 1 to 255 characters (the same key never moves money twice).`);
  }
  if (createAccount !== undefined && typeof createAccount !== 'boolean') throw new GatewayConfigError('ERR_MGW_INVALID_ARGUMENT', `${store}.credit: createAccount must be a boolean.`);
  return { callerId, amount, idempotencyKey };
}

/** The refusal of a credit, debit or read for a caller with no account; `open` says how to open one where it is shown. */
export const noAccountError = (callerId: string, open = 'credit it with createAccount: true'): GatewayError => new GatewayError('not_found_error',
  `callerId: no account "${callerId}"; check the id, create a key for the caller, or ${open} to open one.`);

/** Refuses the `balance` field addKey() once took: money moves only through an idempotent credit. */
export function checkProvision(caller: object, store: string): void {
  if (caller && 'balance' in caller) {
    throw new GatewayConfigError('ERR_MGW_INVALID_ARGUMENT', `${store}.addKey: "balance" is not taken (provisioning never moves money); call credit({ callerId, amount, idempotencyKey }) once instead.`);
  }
}

/** The result of a key seen before: the same change again is a no-op; another change under it is refused. */
export function replayOf(credit: Omit<CreditResult, 'applied'>, first: Omit<CreditResult, 'applied'>): CreditResult {
  if (first.callerId !== credit.callerId || first.amount !== credit.amount) {
    throw new GatewayError('invalid_request_error',
      `idempotency key "${credit.idempotencyKey}" was used for ${first.amount} to ${first.callerId}; use a new key for another change.`);
  }
  return { ...first, applied: false };
}
