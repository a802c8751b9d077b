/** Operator commands against the configured store: keys, credits, reviews, migrate. Every write is audited as "cli:<user>". */
import os from 'node:os';
import { creditAudited } from '../admin/store';
import { GatewayError } from '../foundation/errors';
import { noAccountError } from '../stores/credit';
import { hashKey } from '../stores/hash';
import { newKeySecret, prefixOf, unknownModel, type KeyPatch, type KeyRecord } from '../stores/keys';
import type { MemoryStore } from '../stores/memory/store';
import type { PostgresStore } from '../stores/postgres/store';

/** Parsed arguments: positionals and `--flag value` / `--flag` options. */
export interface Args {
  positional: string[];
  flags: Map<string, string | true>;
}

/** A command that cannot run as given (an unknown id, a store it cannot use): exit code 2, one line naming what and the fix. */
export class CommandError extends Error {
  override name = 'CommandError';
}

/** Wrong use of a command (a missing argument, an unknown option): exit code 2, with the command's usage. */
export class UsageError extends CommandError {
  override name = 'UsageError';
}

type Store = MemoryStore | PostgresStore;
type Out = { human: string; data: unknown };
/** What a command knows of the config: the ids of its models (a key's allow-list must name them). */
export interface CommandContext {
  models: readonly string[];
}

/** `value`, or a UsageError with `message` when it is missing. */
function required<T>(value: T | undefined, message: string): T {
  if (value === undefined) throw new UsageError(message);
  return value;
}
const need = (args: Args, i: number, what: string): string => required(args.positional[i], `missing ${what}`);
const flag = (args: Args, name: string): string | undefined => {
  const v = args.flags.get(name);
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
};
const noKey = (keyId: string): CommandError => new CommandError(`keyId: no key ${keyId}; \`model-gateway keys list\` shows the key ids`);
const keyLine = (k: KeyRecord): string => `${k.keyId}  ${k.prefix}…  ${k.callerId}  ${k.status}${k.expiresAt ? `  expires ${new Date(k.expiresAt).toISOString()}` : ''}`;

/** Runs one operator command (`args.positional[0]` is the command) and returns what to print. */
export async function runCommand(store: Store, args: Args, context: CommandContext): Promise<Out> {
  const actor = `cli:${os.userInfo().username}`;
  const audit = (action: string, target: string, before: unknown, after: unknown) => store.appendAudit({ actor, action, target, before: before ?? null, after: after ?? null });
  const [command, sub] = args.positional;
  if (command === 'migrate') {
    if (!('migrate' in store)) return { human: 'memory store: nothing to migrate', data: { applied: [] } };
    const applied = await store.migrate();
    return { human: applied.length ? `applied migrations ${applied.join(', ')}` : 'schema is up to date', data: { applied } };
  }
  if (command === 'credit') {
    const callerId = need(args, 1, '<caller>');
    const amount = Number(need(args, 2, '<amount>'));
    if (!Number.isSafeInteger(amount) || amount === 0) throw new UsageError('<amount> must be a non-zero integer of minor units (negative for a debit)');
    const idempotencyKey = required(flag(args, 'idempotency-key'), '--idempotency-key is required (the same key never moves money twice)');
    const out = await creditAudited(store, actor, { callerId, amount, idempotencyKey, createAccount: args.flags.has('create-account') }).catch((err: unknown) => {
      // A mistyped caller: bad usage, with the flag that opens an account.
      throw err instanceof GatewayError && err.code === 'not_found_error' ? new CommandError(noAccountError(callerId, 'pass --create-account').message) : err;
    });
    return { human: `${out.applied ? 'applied' : 'already applied (same key)'}: ${callerId} balance ${out.account.balance}`, data: out };
  }
  if (command === 'keys' && sub === 'create') {
    const callerId = need(args, 2, '<caller>');
    const secret = flag(args, 'secret') ?? newKeySecret();
    const models = flag(args, 'models')?.split(',').filter(Boolean);
    const unknown = unknownModel(models, new Set(context.models));
    if (unknown) throw new CommandError(`${unknown}; a key's --models names models of the config`);
    const record = await store.createKey({ keyHash: hashKey(secret), prefix: prefixOf(secret), callerId, models: models ?? null });
    await audit('key.create', `key:${record.keyId}`, null, record);
    return { human: `key ${record.keyId} for ${callerId} (shown once): ${secret}`, data: { key: secret, record } };
  }
  if (command === 'keys' && sub === 'list') {
    const page = await store.listKeys({ callerId: flag(args, 'caller'), limit: 1000 });
    return { human: page.items.map(keyLine).join('\n') || '(no keys)', data: page };
  }
  if (command === 'keys' && (sub === 'disable' || sub === 'enable' || sub === 'revoke' || sub === 'rotate')) {
    const keyId = need(args, 2, '<keyId>');
    const grace = Number(flag(args, 'grace-seconds') ?? 0);
    if (!Number.isSafeInteger(grace) || grace < 0) throw new UsageError('--grace-seconds must be a whole number of seconds, 0 or more');
    const patch: KeyPatch = sub === 'rotate' ? { expiresAt: Date.now() + 1000 * grace } : { status: sub === 'enable' ? 'active' : sub === 'disable' ? 'disabled' : 'revoked' };
    let created: { key: string; record: KeyRecord } | undefined;
    if (sub === 'rotate') {
      const old = await store.getKey(keyId);
      if (!old) throw noKey(keyId);
      const secret = newKeySecret();
      created = { key: secret, record: await store.createKey({ keyHash: hashKey(secret), prefix: prefixOf(secret), callerId: old.callerId, models: old.models, limits: old.limits, metadata: old.metadata }) };
      await audit('key.create', `key:${created.record.keyId}`, null, created.record);
    }
    const out = await store.updateKey(keyId, patch);
    if (!out) throw noKey(keyId);
    await audit(`key.${sub}`, `key:${keyId}`, out.before, out.after);
    const human = created ? `new key ${created.record.keyId} (shown once): ${created.key}\nold ${keyLine(out.after)}` : keyLine(out.after);
    return { human, data: created ? { ...created, previous: out.after } : out.after };
  }
  if (command === 'reviews' && sub === 'list') {
    const page = await store.listReviews({ callerId: flag(args, 'caller'), limit: 1000 });
    return { human: page.items.map((r) => `${r.requestId}  ${r.callerId}  ${r.model}  charged ${r.charge}  ${r.usage.provenance}`).join('\n') || '(no open reviews)', data: page };
  }
  if (command === 'reviews' && sub === 'resolve') {
    const requestId = need(args, 2, '<requestId>');
    const reason = required(flag(args, 'reason'), '--reason is required');
    const charge = flag(args, 'charge');
    if (args.flags.has('waive') === (charge !== undefined)) throw new UsageError('give either --charge <amount> or --waive');
    if (charge !== undefined && !/^\d+$/.test(charge)) throw new UsageError('--charge must be a whole number of minor units, 0 or more');
    const action = args.flags.has('waive') ? 'waive' : 'charge';
    const out = await store.resolveReview({ requestId, action, amount: charge === undefined ? undefined : Number(charge), reason, by: actor });
    if (out.applied) await audit(`review.${action}`, `request:${requestId}`, null, out.review);
    return { human: `${out.applied ? 'resolved' : 'already resolved'}: ${requestId} ${action}`, data: out };
  }
  throw new UsageError(`unknown command: ${args.positional.join(' ') || '(none)'}`);
}
