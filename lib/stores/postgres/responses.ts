/** PostgresStore's stored responses: one row per response, its input items by position, notes for the request log, a batched sweep. */
import type { Usage } from '../../types';
import type { PgQueryable, PgResult } from './migrate';
import type { InputItemsPage, InputItemsQuery, NewResponse, PutResult, ResponseItem, ResponseNote, ResponseStore, StoredResponse } from '../responses';
import { checkItemsQuery, checkRecord, encodeRecord, isResponseId, noteOf, unknownCursor, windowOf } from '../responses-rules';

/** Rows one sweep statement deletes at most, and statements one sweep runs at most (the next sweep goes on). */
const SWEEP_BATCH = 500;
const SWEEP_BATCHES = 20;

const READABLE = 'r.caller_id = $2 AND r.expires_at > now()';
const ms = (v: unknown): number => Math.round(Number(v));

function statements(s: string) {
  const page = (direction: 'ASC' | 'DESC') => `SELECT i.item FROM ${s}.response_items i
    WHERE i.response_id = $1 AND i.position > $3 AND i.position < $4 AND EXISTS (SELECT 1 FROM ${s}.responses r WHERE r.id = $1 AND ${READABLE})
    ORDER BY i.position ${direction} LIMIT $5`;
  return {
    // The response, its items and its request's note in one statement: readable by every instance once it returns.
    // Item ids come apart ($16): reading one out of an item's JSON would fail on a \u0000 anywhere in it.
    put: `WITH r AS (INSERT INTO ${s}.responses (id, caller_id, request_id, model, upstream, upstream_response_id, previous_response_id,
          response, instructions, tools, usage, bytes, created_at, expires_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8::json, $9::json, $10::json, $11::jsonb, $12,
          to_timestamp($13::double precision / 1000), to_timestamp($14::double precision / 1000))
        ON CONFLICT (id) DO NOTHING RETURNING id),
      i AS (INSERT INTO ${s}.response_items (response_id, position, item_id, item)
        SELECT r.id, t.n - 1, ($16::text[])[t.n], t.item FROM r, json_array_elements($15::json) WITH ORDINALITY AS t(item, n)),
      n AS (INSERT INTO ${s}.response_notes (request_id, response_id, caller_id, stored, previous_response_id)
        SELECT $3, r.id, $2, true, $7 FROM r ON CONFLICT (request_id) DO NOTHING)
      SELECT EXISTS (SELECT 1 FROM r) AS inserted, (SELECT caller_id FROM ${s}.responses WHERE id = $1) AS owner`,
    owner: `SELECT caller_id FROM ${s}.responses WHERE id = $1`,
    get: `SELECT r.caller_id, r.request_id, r.model, r.upstream, r.upstream_response_id, r.previous_response_id, r.response, r.instructions, r.tools, r.usage,
        extract(epoch FROM r.created_at) * 1000 AS created_ms, extract(epoch FROM r.expires_at) * 1000 AS expires_ms,
        coalesce((SELECT json_agg(i.item ORDER BY i.position) FROM ${s}.response_items i WHERE i.response_id = r.id), '[]'::json) AS items
      FROM ${s}.responses r WHERE r.id = $1 AND ${READABLE}`,
    delete: `DELETE FROM ${s}.responses r WHERE r.id = $1 AND ${READABLE}`,
    cursors: `SELECT (SELECT position FROM ${s}.response_items WHERE response_id = r.id AND item_id = $3) AS after_at,
        (SELECT position FROM ${s}.response_items WHERE response_id = r.id AND item_id = $4) AS before_at
      FROM ${s}.responses r WHERE r.id = $1 AND ${READABLE}`,
    pageAsc: page('ASC'),
    pageDesc: page('DESC'),
    deleteOf: `WITH d AS (DELETE FROM ${s}.responses WHERE caller_id = $1 RETURNING expires_at) SELECT count(*) FILTER (WHERE expires_at > now()) AS n FROM d`,
    // SKIP LOCKED: instances sweeping at once take disjoint rows, and none waits on another.
    sweep: `WITH d AS (DELETE FROM ${s}.responses WHERE id IN (
        SELECT id FROM ${s}.responses WHERE expires_at <= now() ORDER BY expires_at LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED) RETURNING 1)
      SELECT count(*) AS n FROM d`,
    note: `INSERT INTO ${s}.response_notes (request_id, response_id, caller_id, stored, reason, previous_response_id)
      VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (request_id) DO NOTHING`,
    noteOf: `SELECT request_id, response_id, caller_id, stored, reason, previous_response_id FROM ${s}.response_notes WHERE request_id = $1`,
  };
}

type Statement = keyof ReturnType<typeof statements>;

/** The ResponseStore of a PostgresStore (its `responses`): on the store's pool and schema. */
export class PostgresResponses implements ResponseStore {
  private readonly sql: ReturnType<typeof statements>;

  constructor(private readonly db: PgQueryable, private readonly schema: string) {
    this.sql = statements(schema);
  }

  /** One of the statements, as a named (prepared) query; names carry the schema, so stores on one pool never collide. */
  private run(name: Statement, values: unknown[]): Promise<PgResult> {
    return this.db.query({ name: `mgw_${this.schema}_responses_${name}`, text: this.sql[name], values });
  }

  async putResponse(record: NewResponse, limits: { maxBytes: number }): Promise<PutResult> {
    checkRecord(record, limits);
    const json = encodeRecord(record);
    let result: PutResult | undefined;
    if (json.bytes > limits.maxBytes) result = { stored: false, reason: 'too_large' };
    const values = [record.id, record.callerId, record.requestId, record.model, record.upstream, record.upstreamResponseId, record.previousResponseId,
      json.response, json.instructions, json.tools, record.usage && JSON.stringify(record.usage), json.bytes, record.createdAt, record.expiresAt, `[${json.items.join(',')}]`, json.itemIds];
    // An id taken by a transaction this statement could not see yet is read again; one deleted meanwhile is inserted again.
    for (let n = 0; n < 3 && !result; n++) {
      const row = (await this.run('put', values)).rows[0] as { inserted: boolean; owner: string | null };
      const owner = row.inserted ? record.callerId : row.owner ?? ((await this.run('owner', [record.id])).rows[0]?.caller_id as string | undefined);
      if (owner !== undefined && owner !== null) result = owner === record.callerId ? { stored: true } : { stored: false, reason: 'conflict' };
    }
    if (!result) throw new Error(`PostgresStore.responses: response ${record.id} could not be written or read back.`);
    if (!result.stored) await this.noteResponse(noteOf(record, result));
    return result;
  }

  async getResponse(callerId: string, id: string): Promise<StoredResponse | undefined> {
    if (!isResponseId(id)) return undefined;
    const r = (await this.run('get', [id, callerId])).rows[0];
    if (!r) return undefined;
    return {
      id, callerId, requestId: r.request_id as string, model: r.model as string, upstream: r.upstream as string,
      upstreamResponseId: (r.upstream_response_id as string | null) ?? null, previousResponseId: (r.previous_response_id as string | null) ?? null,
      response: r.response as StoredResponse['response'], inputItems: r.items as ResponseItem[], instructions: r.instructions as StoredResponse['instructions'],
      tools: r.tools as unknown[], usage: (r.usage as Usage | null) ?? null, createdAt: ms(r.created_ms), expiresAt: ms(r.expires_ms),
    };
  }

  async deleteResponse(callerId: string, id: string): Promise<boolean> {
    if (!isResponseId(id)) return false;
    return ((await this.run('delete', [id, callerId])).rowCount ?? 0) > 0;
  }

  async listInputItems(callerId: string, id: string, query?: InputItemsQuery): Promise<InputItemsPage | undefined> {
    const q = checkItemsQuery(query);
    if (!isResponseId(id)) return undefined;
    const found = (await this.run('cursors', [id, callerId, q.after ?? null, q.before ?? null])).rows[0];
    if (!found) return undefined;
    const at = (field: 'after' | 'before', position: unknown): number | undefined => {
      const cursor = q[field];
      if (cursor === undefined) return undefined;
      if (position === null || position === undefined) throw unknownCursor(field, cursor, id);
      return Number(position);
    };
    const w = windowOf(q.order, at('after', found.after_at), at('before', found.before_at));
    const rows = (await this.run(w.ascending ? 'pageAsc' : 'pageDesc', [id, callerId, w.lo, w.hi, q.limit + 1])).rows;
    const data = rows.slice(0, q.limit).map((row) => row.item as ResponseItem);
    if (w.reverse) data.reverse();
    return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: rows.length > q.limit };
  }

  async deleteResponsesOf(callerId: string): Promise<number> {
    return Number((await this.run('deleteOf', [callerId])).rows[0]?.n ?? 0);
  }

  async noteResponse(note: ResponseNote): Promise<void> {
    await this.run('note', [note.requestId, note.responseId, note.callerId, note.stored, note.reason, note.previousResponseId]);
  }

  async responseOfRequest(requestId: string): Promise<ResponseNote | undefined> {
    const r = (await this.run('noteOf', [requestId])).rows[0];
    return r && {
      requestId: r.request_id as string, responseId: r.response_id as string, callerId: r.caller_id as string, stored: r.stored as boolean,
      reason: (r.reason as ResponseNote['reason']) ?? null, previousResponseId: (r.previous_response_id as string | null) ?? null,
    };
  }

  /** Deletes expired responses (their items with them) in batches; safe on every instance at once. */
  async sweepExpiredResponses(): Promise<number> {
    let total = 0;
    for (let n = 0; n < SWEEP_BATCHES; n++) {
      const deleted = Number((await this.run('sweep', [])).rows[0]?.n ?? 0);
      total += deleted;
      if (deleted < SWEEP_BATCH) break;
    }
    return total;
  }
}
