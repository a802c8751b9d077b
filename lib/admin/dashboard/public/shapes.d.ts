/** The admin API's answers as the page reads them: the server's own types, so the page follows any change to them. */
export type { AuditEntry } from '../../../stores/audit';
export type { KeyRecord } from '../../../stores/keys';
export type { Account, LedgerEntry, Page } from '../../../stores/reads';
export type { ReviewRecord, ReviewResolution } from '../../../stores/reviews';
export type { AccountRow, SeriesPoint } from '../../../stores/stats';
export type { BillingStatus, RequestLogEntry } from '../../../stores/types';
import type { RequestLogEntry } from '../../../stores/types';
import type { ResponseNote } from '../../../stores/responses';

/** One request as GET /requests/:requestId shows it: with its Responses API response, if it made one (lib/admin/records.ts). */
export interface RequestDetail extends RequestLogEntry {
  response: { id: string; stored: boolean; reason: ResponseNote['reason']; previousResponseId: string | null } | null;
}

/** A runtime override of the catalog as GET /models/overrides shows it (lib/admin/models.ts). */
export type { AppliedOverride as OverrideView } from '../../../catalog-overrides';

/** A model as GET /models shows it (lib/admin/models.ts). */
export interface ModelView {
  id: string;
  capability: 'llm' | 'rerank';
  upstream: string;
  upstreamModel: string;
  pricing: Record<string, number | string> | null;
  /** Every price in effect, defaults applied (read-only). */
  prices: Record<string, string> | null;
  free: boolean;
  maxOutputTokens: number | null;
  temperature: boolean;
  displayName: string | null;
  createdAt: string | null;
  agentReady: boolean;
  /** The runtime override it serves with (read-only); null: as configured. */
  override: import('../../../catalog-overrides').AppliedOverride | null;
}
