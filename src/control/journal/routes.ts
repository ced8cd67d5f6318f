import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PageOf } from '../../platform/pagination.js';
import { JournalEntrySchema, JournalQuerySchema, type JournalQuery } from './schemas.js';
import type { Journal } from './service.js';

const tags = ['Edgeplane control'];
const config = { access: 'operator' as const };

export function journalRoutes(app: FastifyInstance, journal: Journal): void {
  app.get<{ Querystring: JournalQuery }>(
    '/_edgeplane/journal',
    {
      config,
      schema: {
        operationId: 'control.journal.list',
        tags,
        summary: 'Requests this node received, filtered and paginated',
        querystring: JournalQuerySchema,
        response: { 200: PageOf(JournalEntrySchema) },
      },
    },
    async (request) => journal.query(request.query),
  );

  app.delete(
    '/_edgeplane/journal',
    {
      config,
      schema: { operationId: 'control.journal.clear', tags, summary: 'Empty the journal', response: { 200: Type.Object({ deleted: Type.Integer() }) } },
    },
    async () => ({ deleted: journal.clear() }),
  );
}
