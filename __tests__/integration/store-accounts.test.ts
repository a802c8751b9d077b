/** Accounts on both stores: money moves only into an account that exists (made by a key or opened by a credit that says so). */
import { randomBytes } from 'node:crypto';
import { GatewayError } from '../../lib';
import { hashKey } from '../../lib/stores/hash';
import { BOTH_STORES, type MadeStore } from '../helpers/services';
import { refused } from '../helpers/config-error';

describe.each(BOTH_STORES)('%s', (_name, make) => {
  let made: MadeStore;
  beforeAll(async () => { made = await make(); });
  afterAll(async () => made.drop());
  const id = (): string => `c_${randomBytes(6).toString('hex')}`;
  /** What a call threw (a sync store throws, an async one rejects). */
  const thrown = (work: () => unknown): Promise<unknown> => Promise.resolve().then(work).then(() => undefined, (err: unknown) => err);
  const noAccount = (callerId: string) => expect.objectContaining({
    code: 'not_found_error', status: 404,
    message: `callerId: no account "${callerId}"; check the id, create a key for the caller, or credit it with createAccount: true to open one.`,
  });

  it('a credit, a debit or a read of a caller with no account is refused (not_found_error naming it), and nothing moves', async () => {
    const { store } = made;
    const typo = id();
    expect(await thrown(() => store.credit({ callerId: typo, amount: 100, idempotencyKey: `k-${typo}` }))).toEqual(noAccount(typo));
    expect(await thrown(() => store.credit({ callerId: typo, amount: -100, idempotencyKey: `d-${typo}` }))).toEqual(noAccount(typo));
    expect(await thrown(() => store.getAccount(typo))).toBeInstanceOf(GatewayError);
    expect(await thrown(() => store.getAccount(typo))).toEqual(noAccount(typo));
    expect((await store.listLedger({ callerId: typo })).items).toEqual([]);
    // The refused key moved nothing, so it is still free for the right caller.
    const right = id();
    await store.addKey(`sk-${right}-0123456789`, { id: right });
    expect(await store.credit({ callerId: right, amount: 100, idempotencyKey: `k-${typo}` })).toMatchObject({ applied: true });
    expect(await thrown(() => store.credit({ callerId: right, amount: 1, idempotencyKey: 'x', createAccount: 'yes' as never }))).toEqual(refused('ERR_MGW_INVALID_ARGUMENT', `${_name}.credit: createAccount must be a boolean.`));
  });

  it('an account exists once a key was added or created for the caller, or a credit with createAccount opened it (once, even concurrently)', async () => {
    const { store } = made;
    const [added, created, opened] = [id(), id(), id()];
    await store.addKey(`sk-${added}-0123456789`, { id: added });
    await store.createKey({ keyHash: hashKey(`sk-${created}`), prefix: 'sk-', callerId: created });
    for (const callerId of [added, created]) {
      expect(await store.getAccount(callerId)).toEqual({ balance: 0, held: 0, carry: '0', ledger: 0 });
      expect(await store.credit({ callerId, amount: -5, idempotencyKey: `debit-${callerId}` })).toMatchObject({ applied: true });
    }
    const results = await Promise.all(Array.from({ length: 8 }, () => store.credit({ callerId: opened, amount: 70, idempotencyKey: `open-${opened}`, createAccount: true })));
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    expect(results[0]).toEqual({ callerId: opened, amount: 70, idempotencyKey: `open-${opened}`, applied: expect.any(Boolean) });
    expect(await store.getAccount(opened)).toEqual({ balance: 70, held: 0, carry: '0', ledger: 70 });
    // A retry of the applied credit answers as before, with or without the flag; another change under its key is still refused.
    expect(await store.credit({ callerId: opened, amount: 70, idempotencyKey: `open-${opened}` })).toMatchObject({ applied: false });
    await expect(thrown(() => store.credit({ callerId: id(), amount: 70, idempotencyKey: `open-${opened}` }))).resolves.toThrow(/was used for 70 to/);
    expect(await store.credit({ callerId: opened, amount: 1, idempotencyKey: `more-${opened}`, createAccount: true })).toMatchObject({ applied: true }); // open already: a plain credit
    expect(await store.getAccount(opened)).toEqual({ balance: 71, held: 0, carry: '0', ledger: 71 });
  });
});
