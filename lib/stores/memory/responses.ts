/** MemoryStore's stored responses: JSON texts by id, kept to a count and a total size (oldest dropped first) and until they expire. */
import { GatewayConfigError } from '../../foundation/config-errors';
import { trimBounded } from './bounded';
import type { InputItemsPage, InputItemsQuery, NewResponse, PutResult, ResponseItem, ResponseNote, ResponseStore, StoredResponse } from '../responses';
import { checkItemsQuery, checkRecord, encodeRecord, isResponseId, noteOf, unknownCursor, windowOf, type EncodedResponse } from '../responses-rules';

/** MemoryStore's `maxResponseBytes` default: 128 MiB. */
const DEFAULT_MAX_BYTES = 134_217_728;
/** How often a put also sweeps every expired response, not only those at the front (ms). */
const FULL_SWEEP_EVERY_MS = 60_000;

interface Kept {
  record: Omit<NewResponse, 'response' | 'inputItems' | 'instructions' | 'tools'>;
  json: EncodedResponse;
  /** Its place in `order`: an id deleted and stored again is a new entry there. */
  seq: number;
}

/**
 * The ResponseStore of one process. Each response is kept as the JSON texts its size was measured
 * on (a read parses a copy, so no caller can change a stored one), at most `maxRecords` of them
 * and `maxBytes` in all, the oldest dropped first; an expired one is unreadable at once and removed
 * by the next put that meets it or sweeps.
 */
export class MemoryResponses implements ResponseStore {
  private readonly kept = new Map<string, Kept>();
  /** Ids in the order stored, from `head` on (a queue: dropping the oldest walks no deleted Map slots). */
  private order: Array<{ id: string; seq: number }> = [];
  private head = 0;
  private seq = 0;
  private bytes = 0;
  private sweptAt = Date.now();
  private readonly notes = new Map<string, ResponseNote>();

  private readonly maxBytes: number;

  constructor(private readonly maxRecords: number, maxBytes = DEFAULT_MAX_BYTES) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new GatewayConfigError('ERR_MGW_INVALID_INTEGER', 'MemoryStore: option "maxResponseBytes" must be a positive integer of bytes.');
    this.maxBytes = maxBytes;
  }

  putResponse(record: NewResponse, limits: { maxBytes: number }): PutResult {
    checkRecord(record, limits);
    const now = Date.now();
    if (now - this.sweptAt >= FULL_SWEEP_EVERY_MS) this.sweepExpiredResponses(now);
    const known = this.kept.get(record.id);
    let result: PutResult;
    if (known) result = known.record.callerId === record.callerId ? { stored: true } : { stored: false, reason: 'conflict' };
    else {
      const json = encodeRecord(record);
      if (json.bytes > limits.maxBytes || json.bytes > this.maxBytes) result = { stored: false, reason: 'too_large' };
      else {
        const { response: _r, inputItems: _i, instructions: _n, tools: _t, ...rest } = record;
        const kept: Kept = { record: { ...rest, usage: rest.usage && { ...rest.usage } }, json, seq: ++this.seq };
        this.kept.set(record.id, kept);
        this.order.push({ id: record.id, seq: kept.seq });
        this.bytes += json.bytes;
        this.trim(now);
        result = { stored: true };
      }
    }
    this.noteResponse(noteOf(record, result));
    return result;
  }

  getResponse(callerId: string, id: string): StoredResponse | undefined {
    const kept = this.find(callerId, id);
    if (!kept) return undefined;
    const { record, json } = kept;
    return {
      ...record, usage: record.usage && { ...record.usage }, response: JSON.parse(json.response) as StoredResponse['response'],
      inputItems: json.items.map((t) => JSON.parse(t) as ResponseItem), instructions: JSON.parse(json.instructions) as StoredResponse['instructions'],
      tools: JSON.parse(json.tools) as unknown[],
    };
  }

  deleteResponse(callerId: string, id: string): boolean {
    if (!this.find(callerId, id)) return false;
    this.drop(id);
    return true;
  }

  listInputItems(callerId: string, id: string, query?: InputItemsQuery): InputItemsPage | undefined {
    const q = checkItemsQuery(query);
    const kept = this.find(callerId, id);
    if (!kept) return undefined;
    const ids = kept.json.itemIds;
    const at = (field: 'after' | 'before'): number | undefined => {
      const cursor = q[field];
      if (cursor === undefined) return undefined;
      const i = ids.indexOf(cursor);
      if (i < 0) throw unknownCursor(field, cursor, id);
      return i;
    };
    const w = windowOf(q.order, at('after'), at('before'));
    const [first, last] = [w.lo + 1, Math.min(w.hi, ids.length) - 1];
    const span = Math.max(0, last - first + 1);
    const n = Math.min(span, q.limit);
    const positions = Array.from({ length: n }, (_, k) => (w.ascending ? first + k : last - k));
    if (w.reverse) positions.reverse();
    const data = positions.map((p) => JSON.parse(kept.json.items[p] as string) as ResponseItem);
    return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: span > q.limit };
  }

  deleteResponsesOf(callerId: string): number {
    const now = Date.now();
    let readable = 0;
    for (const [id, kept] of this.kept) {
      if (kept.record.callerId !== callerId) continue;
      if (kept.record.expiresAt > now) readable++;
      this.drop(id);
    }
    return readable;
  }

  noteResponse(note: ResponseNote): void {
    if (this.notes.has(note.requestId)) return;
    this.notes.set(note.requestId, { ...note });
    trimBounded(this.notes, this.maxRecords);
  }

  responseOfRequest(requestId: string): ResponseNote | undefined {
    const note = this.notes.get(requestId);
    return note && { ...note };
  }

  sweepExpiredResponses(now = Date.now()): number {
    this.sweptAt = now;
    let n = 0;
    for (const [id, kept] of this.kept) {
      if (kept.record.expiresAt > now) continue;
      this.drop(id);
      n++;
    }
    return n;
  }

  /** The response if `callerId` may see it now: another account's and an expired one are not found alike. */
  private find(callerId: string, id: string): Kept | undefined {
    if (!isResponseId(id)) return undefined;
    const kept = this.kept.get(id);
    return kept && kept.record.callerId === callerId && kept.record.expiresAt > Date.now() ? kept : undefined;
  }

  private drop(id: string): void {
    const kept = this.kept.get(id);
    if (!kept) return;
    this.kept.delete(id);
    this.bytes -= kept.json.bytes;
  }

  /** Drops the oldest while over a bound or expired, then forgets the queue's spent entries. */
  private trim(now: number): void {
    while (this.head < this.order.length) {
      const { id, seq } = this.order[this.head] as { id: string; seq: number };
      const kept = this.kept.get(id);
      const current = kept?.seq === seq;
      if (current && this.kept.size <= this.maxRecords && this.bytes <= this.maxBytes && (kept as Kept).record.expiresAt > now) break;
      if (current) this.drop(id);
      this.head++;
    }
    // Entries of deleted or swept responses wait in the queue: rebuilt once they outnumber the kept ones.
    if (this.order.length - this.head > 2 * this.kept.size + 1024) {
      this.order = this.order.slice(this.head).filter(({ id, seq }) => this.kept.get(id)?.seq === seq);
      this.head = 0;
    }
  }
}
