/** PostgresStore's catalog overrides (tables of migration 011): one row per model, one version number polled by every instance. */
import type { CatalogOverride, CatalogOverrideStore, OverrideChange } from '../catalog-overrides';
import type { PgPoolLike } from './migrate';

export class PostgresCatalogOverrides implements CatalogOverrideStore {
  constructor(private readonly pool: PgPoolLike, private readonly schema: string) {}

  /** The one number every instance polls (a one-row table). */
  async catalogVersion(): Promise<string> {
    const row = (await this.pool.query({ name: `mgw_${this.schema}_catalogVersion`, text: `SELECT version FROM ${this.schema}.catalog_state` })).rows[0];
    return String(row?.version ?? 0);
  }

  /** One statement, so the rows and the version come from one snapshot. */
  async listCatalogOverrides(): Promise<{ version: string; overrides: CatalogOverride[] }> {
    const s = this.schema;
    const row = (await this.pool.query(`SELECT (SELECT version FROM ${s}.catalog_state) AS version,
      coalesce((SELECT jsonb_agg(jsonb_build_object('model', model, 'kind', kind, 'fields', fields, 'actor', actor, 'at', at) ORDER BY at, model)
        FROM ${s}.catalog_overrides), '[]'::jsonb) AS overrides`)).rows[0] as { version: unknown; overrides: CatalogOverride[] } | undefined;
    return { version: String(row?.version ?? 0), overrides: (row?.overrides ?? []).map((o) => ({ ...o, at: Number(o.at) })) };
  }

  /** One statement: the rows changed and the version moved together, or nothing. */
  async changeCatalogOverrides(changes: readonly OverrideChange[]): Promise<string> {
    const s = this.schema;
    const rows = changes.map(({ model, override }) => ({ model, drop: override === null, ...(override ?? {}) }));
    const row = (await this.pool.query(`WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(model text, drop boolean, kind text, fields jsonb, actor text, at bigint)),
        d AS (DELETE FROM ${s}.catalog_overrides WHERE model IN (SELECT model FROM x WHERE drop)),
        u AS (INSERT INTO ${s}.catalog_overrides (model, kind, fields, actor, at) SELECT model, kind, fields, actor, at FROM x WHERE NOT drop
          ON CONFLICT (model) DO UPDATE SET kind = EXCLUDED.kind, fields = EXCLUDED.fields, actor = EXCLUDED.actor, at = EXCLUDED.at)
      UPDATE ${s}.catalog_state SET version = version + 1 RETURNING version`, [JSON.stringify(rows)])).rows[0];
    return String(row?.version);
  }
}
