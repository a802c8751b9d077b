/**
 * model-gateway/testing: the store contract suite every built-in store passes, for a store author
 * to run against their own store with their test framework's functions (no test framework is
 * loaded here).
 */
import { randomBytes } from 'node:crypto';
import { accountCases } from './account-cases';
import { budgetCases } from './budget-cases';
import type { ContractStore, StoreContractOptions, Suite } from './contract';
import { moneyCases } from './money-cases';

export type { ContractStore, ContractTarget, StoreContractOptions } from './contract';
export type { ExpectLike, Matchers, TestFramework } from './framework';

/**
 * Declares the contract suite in a `describe(name)` block: `create()` makes the store once
 * (beforeAll), its `drop()` runs after (afterAll). Call it at the top level of a test file.
 */
export function runStoreContract(options: StoreContractOptions): void {
  const { name, create, seed = 7, describe, beforeAll, afterAll } = options;
  describe(name, () => {
    let store: ContractStore | undefined;
    let drop: (() => Promise<void>) | undefined;
    beforeAll(async () => { ({ store, drop } = await create()); }, 60_000);
    afterAll(async () => { await drop?.(); }, 60_000);
    const suite: Suite = {
      ...options,
      seed,
      store: () => {
        if (!store) throw new Error(`runStoreContract: ${name}: create() did not give a store`);
        return store;
      },
      async caller(balance, extra = {}) {
        const id = `c_${randomBytes(6).toString('hex')}`;
        await suite.store().addKey(`key-${id}`, { id, ...extra });
        if (balance !== 0) await suite.store().credit({ callerId: id, amount: balance, idempotencyKey: `opening-${id}` });
        return id;
      },
    };
    moneyCases(suite);
    accountCases(suite);
    budgetCases(suite);
  });
}
