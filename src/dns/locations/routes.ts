// HTTP surface of the location lists: every list at once, or continents, countries or regions.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ERRORS } from '../common/http.js';
import { locations } from './data.js';
import { typed } from '../../platform/typed.js';

const TAGS = ['DNS locations'];
const Translations = Type.Object({ names: Type.Record(Type.String(), Type.String(), { description: 'Name per language code' }) });
const ByCode = Type.Record(Type.String(), Translations, { description: 'Keyed by the lower-case code records meta uses' });

export function locationRoutes(fastify: FastifyInstance): void {
  const app = typed(fastify);
  app.get(
    '/dns/v2/locations',
    {
      schema: {
        operationId: 'dns.locations.all',
        tags: TAGS,
        summary: 'Continents, countries and regions',
        response: { 200: Type.Object({ continents: ByCode, countries: ByCode, regions: ByCode }), ...ERRORS },
      },
    },
    async () => locations(),
  );
  for (const kind of ['continents', 'countries', 'regions'] as const) {
    app.get(
      `/dns/v2/locations/${kind}`,
      { schema: { operationId: `dns.locations.${kind}`, tags: TAGS, summary: `Location codes: ${kind}`, response: { 200: ByCode, ...ERRORS } } },
      async () => locations()[kind],
    );
  }
}
