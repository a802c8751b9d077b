/** The admin API's answers as the page reads them: the server's own types, so the page follows any change to them. */
export type { AuditEntry } from '../../../stores/audit';
export type { KeyRecord } from '../../../stores/keys';
export type { Account, LedgerEntry, Page } from '../../../stores/reads';
export type { ReviewRecord, ReviewResolution } from '../../../stores/reviews';
export type { AccountRow, SeriesPoint } from '../../../stores/stats';
export type { BillingStatus, RequestLogEntry } from '../../../stores/types';

/** One request (GET /requests/:requestId), a model (GET /models), a runtime override (GET /models/overrides): the types of the admin API's own schemas (lib/admin/schemas.ts). */
export type { ModelView, OverrideView, RequestDetail } from '../../schemas';

/** A review as GET /reviews shows it: the record, why it was flagged and what its observed usage costs (lib/admin/reviews.ts). */
export type { ObservedCost, ReviewView } from '../../reviews';
