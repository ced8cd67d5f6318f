// A second baseline: Fastify with no hooks, no logger and no schema, sending fixed bytes. What the
// framework alone costs next to bare node:http, so a gap can be split between Fastify and Edgeplane.
import Fastify from 'fastify';

const body = process.env.BARE_BODY ?? '{}';
const headers = JSON.parse(process.env.BARE_HEADERS ?? '{}');
const app = Fastify({ logger: false });
app.all('/*', (_request, reply) => {
  reply.headers(headers).send(body);
});
await app.listen({ port: Number(process.argv[2]), host: '127.0.0.1' });
process.on('SIGTERM', () => process.exit(0));
