// HTTP surface of lookups, delegation checks and the platform's own facts (its name servers).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/plugin.js';
import { StringEnum } from '../../platform/schema.js';
import { ERRORS, VALIDATED } from '../common/http.js';
import { MAX_NAME_INPUT } from '../common/names.js';
import { PLATFORM_CONTACT, PLATFORM_NAME_SERVERS } from '../common/platform.js';
import type { LookupService } from './service.js';
import { typed } from '../../platform/typed.js';

const TAGS = ['DNS lookup'];
const RESOLVERS = ['authoritative_dns', 'google', 'cloudflare', 'open_dns', 'quad9', 'gcore'] as const;

const LookupQuery = Type.Object({
  name: Type.Optional(Type.String({ maxLength: MAX_NAME_INPUT, description: 'A domain name, or an IP address for its reverse (PTR) name (required)' })),
  request_server: Type.Optional(StringEnum(RESOLVERS, { description: 'Accepted; every lookup is answered from the zones hosted here' })),
});
const LookupResult = Type.Array(Type.Object({ name: Type.String(), type: Type.String(), ttl: Type.Integer(), content: Type.Array(Type.String()) }));

const NameServer = Type.Object({ name: Type.String(), ipv4Addresses: Type.Array(Type.String()), ipv6Addresses: Type.Array(Type.String()) });
const Delegation = Type.Object({
  zone_exists: Type.Boolean({ description: 'The caller hosts a zone of this name' }),
  authoritative_name_servers: Type.Array(NameServer),
  gcore_authorized_count: Type.Integer({ description: "How many of them are the platform's name servers" }),
  non_gcore_authorized_count: Type.Integer(),
  is_whitelabel_delegation: Type.Boolean(),
});
const Info = Type.Object({ Info: Type.Object({ contact: Type.String(), name_server_1: Type.String(), name_server_2: Type.String() }) });

export function lookupRoutes(fastify: FastifyInstance, lookup: LookupService): void {
  const app = typed(fastify);
  app.get(
    '/dns/v2/lookup',
    {
      ...VALIDATED,
      schema: { operationId: 'dns.lookup', tags: TAGS, summary: 'The records of a name', querystring: LookupQuery, response: { 200: LookupResult, ...ERRORS } },
    },
    async (request) => lookup.lookup(request.query.name),
  );

  app.get(
    '/dns/v2/analyze/:name/delegation-status',
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.zones.delegationStatus',
        tags: TAGS,
        summary: 'Which name servers a domain is delegated to',
        params: Type.Object({ name: Type.String({ maxLength: MAX_NAME_INPUT }) }),
        response: { 200: Delegation, ...ERRORS },
      },
    },
    async (request) => lookup.delegation(principalOf(request), request.params.name),
  );

  app.get(
    '/dns/v2/platform/info',
    { schema: { operationId: 'dns.platform.info', tags: TAGS, summary: "The platform's name servers and contact", response: { 200: Info, ...ERRORS } } },
    async () => ({ Info: { contact: PLATFORM_CONTACT, name_server_1: PLATFORM_NAME_SERVERS[0], name_server_2: PLATFORM_NAME_SERVERS[1] } }),
  );
}
