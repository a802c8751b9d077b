/** JSON Schema of a rerank request, built from its configurable bounds. */
import { GATEWAY_DEFAULTS } from '../foundation/defaults';

/** Bounds of rerank requests. */
export interface RerankBounds {
  /** Most documents per request. Default: 1000. */
  maxDocuments?: number;
  /** Longest document, in characters. Default: 100000. */
  maxDocumentChars?: number;
  /** Longest query, in characters. Default: 10000. */
  maxQueryChars?: number;
}

/** Defaults of RerankBounds. */
export const DEFAULT_RERANK_BOUNDS: Readonly<Required<RerankBounds>> = GATEWAY_DEFAULTS.rerank;

/** Rerank request schema for the given bounds. */
export function rerankSchema(bounds: Required<RerankBounds>): object {
  return {
    type: 'object',
    required: ['model', 'query', 'documents'],
    additionalProperties: false,
    properties: {
      model: { type: 'string', minLength: 1, maxLength: 256 },
      query: { type: 'string', pattern: '\\S', maxChars: bounds.maxQueryChars },
      documents: {
        type: 'array',
        minItems: 1,
        maxItems: bounds.maxDocuments,
        items: { type: 'string', maxChars: bounds.maxDocumentChars },
      },
      top_n: { type: 'integer', minimum: 1 },
      return_documents: { type: 'boolean' },
      max_tokens_per_doc: { type: 'integer', minimum: 1 },
      user: { type: 'string', maxLength: 256 },
    },
  };
}
