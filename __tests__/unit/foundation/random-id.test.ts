/** randomHex(): 32 hex characters, never repeated, across refills of its pool. */
import { randomHex } from '../../../lib/foundation/random-id';
import { newRequestId } from '../../../lib/middleware/request-id';

it('gives 32 lowercase hex characters, unique across several refills of the pool', () => {
  const ids = Array.from({ length: 2000 }, () => randomHex());
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
  expect(new Set(ids).size).toBe(ids.length);
  expect(newRequestId()).toMatch(/^req_[0-9a-f]{32}$/);
});
