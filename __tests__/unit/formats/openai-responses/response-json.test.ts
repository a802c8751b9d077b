/** A response's JSON with its echoed fields serialised once (ResponseEnvelope.json) must be JSON.stringify's bytes, whatever it holds. */
import fc from 'fast-check';
import { ResponseEnvelope } from '../../../../lib/formats/openai-responses/response';
import type { ResponsesPlan } from '../../../../lib/formats/openai-responses/request';
import type { ResponseObject } from '../../../../lib/formats/openai-responses/types';

const text = fc.string({ unit: 'binary', maxLength: 30 });
const value = fc.jsonValue({ maxDepth: 2 });
/** Echoed fields as a request sets them, undefined values (left out by JSON) and names of the response's own fields included. */
const echo = fc.dictionary(fc.oneof(text, fc.constantFrom('instructions', 'tools', 'store', 'model', 'status', 'usage')), fc.option(value, { nil: undefined }), { maxKeys: 6 });

it('writes any response exactly as JSON.stringify does: object(), final(), a changed echoed field, an empty echo', () => {
  fc.assert(fc.property(echo, text, text, fc.constantFrom('in_progress', 'completed', 'failed'), fc.array(value, { maxLength: 3 }), fc.boolean(), fc.option(value, { nil: undefined }),
    (fields, id, model, status, output, withUsage, changed) => {
      const envelope = new ResponseEnvelope({ echo: fields } as unknown as ResponsesPlan, id, model, 1_700_000_000);
      const usage = withUsage ? { input_tokens: 3, output_tokens: 4 } : undefined;
      const responses: ResponseObject[] = [
        envelope.object(status as ResponseObject['status'], output as unknown as ResponseObject["output"], usage),
        envelope.final('max_tokens', output as unknown as ResponseObject["output"], usage),
        envelope.final('end_turn', output as unknown as ResponseObject["output"], usage),
      ];
      const edited = { ...envelope.object('completed', [], usage) } as Record<string, unknown>;
      edited.store = changed; // proxy-responses sets `store` on the final response before it is written
      responses.push(edited as unknown as ResponseObject, { ...edited, extra: 1 } as unknown as ResponseObject);
      for (const response of responses) expect(envelope.json(response)).toBe(JSON.stringify(response));
      for (const response of responses) expect(envelope.json(response)).toBe(JSON.stringify(response)); // the echo's JSON, made once, reused
    }), { numRuns: 1500 });
});
