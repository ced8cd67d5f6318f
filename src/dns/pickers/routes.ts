// HTTP surface of the picker catalogue: the pickers an RRset can use, and ready-made lists of them.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ERRORS } from '../common/http.js';
import { PICKERS, PRESETS } from './data.js';
import { typed } from '../../platform/typed.js';

const TAGS = ['DNS pickers'];
const LabelName = Type.Object({ name: Type.String({ description: 'The picker type, as an RRset names it' }), label: Type.String() });

export function pickerRoutes(fastify: FastifyInstance): void {
  const app = typed(fastify);
  app.get(
    '/dns/v2/pickers',
    { schema: { operationId: 'dns.pickers.list', tags: TAGS, summary: 'Pickers an RRset can use', response: { 200: Type.Array(LabelName), ...ERRORS } } },
    async () => PICKERS,
  );
  app.get(
    '/dns/v2/pickers/presets',
    {
      schema: {
        operationId: 'dns.pickers.presets',
        tags: TAGS,
        summary: 'Ready-made picker lists, by name',
        response: { 200: Type.Record(Type.String(), Type.Array(LabelName)), ...ERRORS },
      },
    },
    async () => PRESETS,
  );
}
