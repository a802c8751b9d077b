/** Credits and debits a host makes: checked once, idempotent by key on every store. */
import { GatewayError } from '../errors';

/** A credit (positive) or debit (negative) of a caller's balance, in integer minor units. */
export interface Credit {
  callerId: string;
  amount: number;
  /** Makes the change exactly-once: the same key with the same caller and amount moves money once. */
  idempotencyKey: string;
}

/** The outcome: `applied` false when the key had moved this money before (nothing changed now). */
export interface CreditResult extends Credit {
  applied: boolean;
}

/** Checks a credit's fields; throws a TypeError that names the field. */
export function checkCredit(credit: Credit, store: string): Credit {
  const { callerId, amount, idempotencyKey } = credit ?? ({} as Credit);
  if (typeof callerId !== 'string' || callerId.length === 0) throw new TypeError(`${store}.credit: callerId must be a non-empty string.`);
  if (!Number.isSafeInteger(amount) || amount === 0) throw new TypeError(`${store}.credit: amount must be a non-zero integer of minor units (negative for a debit).`);
  if (typeof idempotencyKey !== 'string' || idempotencyKey.length === 0 || idempotencyKey.length > 255) {
    throw new TypeError(`${store}.credit: idempotencyKey must be a string of 1 to 255 characters (the same key never moves money twice).`);
  }
  return { callerId, amount, idempotencyKey };
}

/** Refuses the `balance` field addKey() once took: money moves only through an idempotent credit. */
export function checkProvision(caller: object, store: string): void {
  if (caller && 'balance' in caller) {
    throw new TypeError(`${store}.addKey: "balance" is not taken (provisioning never moves money); call credit({ callerId, amount, idempotencyKey }) once instead.`);
  }
}

/** The result of a key seen before: the same change again is a no-op; another change under it is refused. */
export function replayOf(credit: Credit, first: Credit): CreditResult {
  if (first.callerId !== credit.callerId || first.amount !== credit.amount) {
    throw new GatewayError('invalid_request_error',
      `idempotency key "${credit.idempotencyKey}" was used for ${first.amount} to ${first.callerId}; use a new key for another change.`);
  }
  return { ...first, applied: false };
}
