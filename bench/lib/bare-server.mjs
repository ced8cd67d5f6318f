// The baseline: a bare node:http server that returns fixed bytes, the fastest any Node server can be.
import http from 'node:http';

const body = Buffer.from(process.env.BARE_BODY ?? '{}');
const headers = { ...JSON.parse(process.env.BARE_HEADERS ?? '{}'), 'content-length': body.length };
http
  .createServer((req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  })
  .listen(Number(process.argv[2]), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
