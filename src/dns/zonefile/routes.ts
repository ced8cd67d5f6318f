// HTTP surface of zone files: export a zone, import a file. The import takes the file as its raw body
// whatever the content type says (the reference's body is a byte stream), so it is registered in a
// scope of its own whose body parser keeps the text as sent.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/plugin.js';
import { ERRORS, VALIDATED } from '../common/http.js';
import { ZoneNameParams } from '../rrsets/schemas.js';
import type { ZoneFileService } from './service.js';
import { typed } from '../../platform/typed.js';

const TAGS = ['DNS zones'];

const ExportResult = Type.Object({ raw_zone: Type.String({ description: 'The zone as a BIND master file' }) });
const ImportResult = Type.Object({
  success: Type.Boolean(),
  imported: Type.Object({
    rrsets: Type.Integer({ description: 'RRsets written (created or replaced)' }),
    resource_records: Type.Integer({ description: 'Records written' }),
    skipped_resource_records: Type.Integer({ description: 'Records left out: outside the zone, of a type not kept, or repeated' }),
    qtype: Type.Integer({ description: 'Distinct record types written' }),
  }),
  warnings: Type.Record(Type.String(), Type.Record(Type.String(), Type.String()), { description: 'Per owner name and type, what was left out or changed' }),
});

export async function zoneFileRoutes(fastify: FastifyInstance, files: ZoneFileService): Promise<void> {
  const app = typed(fastify);
  app.get(
    '/dns/v2/zones/:zoneName/export',
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.zones.export',
        tags: TAGS,
        summary: 'The zone as a BIND master file',
        params: ZoneNameParams,
        response: { 200: ExportResult, ...ERRORS },
      },
    },
    async (request) => files.export(principalOf(request), request.params.zoneName),
  );

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    typed(scope).post(
      '/dns/v2/zones/:zoneName/import',
      {
        ...VALIDATED,
        schema: {
          operationId: 'dns.zones.import',
          tags: TAGS,
          summary: 'Import a BIND master file into the zone (its RRsets replace those of the same name and type)',
          params: ZoneNameParams,
          response: { 200: ImportResult, ...ERRORS },
        },
      },
      async (request) =>
        files.import(
          principalOf(request),
          request.params.zoneName,
          typeof request.body === 'string' ? request.body : undefined,
          request.headers['content-type'],
        ),
    );
  });
}
