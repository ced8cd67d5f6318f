// The DNS listener as the server runs it: off by default, on with --dns-port / EDGEPLANE_DNS_PORT, bound
// to the configured host, answering the API's writes, and closed (port free again) with the server.
import dgram from 'node:dgram';
import { promises as dnsPromises } from 'node:dns';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config.js';
import { startServer } from '../../server.js';

/** A port free for both UDP and TCP on 127.0.0.1 at the moment of asking. */
async function freePort(): Promise<number> {
  for (;;) {
    const udp = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    const port = udp.address().port;
    udp.close();
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer().once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

describe('the server and its DNS listener', () => {
  it('is off by default and takes its port from the flag or the environment', () => {
    expect(loadConfig({}).dnsPort).toBe(0);
    expect(loadConfig({ EDGEPLANE_DNS_PORT: '5353' }).dnsPort).toBe(5353);
    expect(loadConfig({ EDGEPLANE_DNS_PORT: '5353' }, { dnsPort: '5354' }).dnsPort).toBe(5354);
    expect(() => loadConfig({ EDGEPLANE_DNS_PORT: '70000' })).toThrow(ConfigError);
    expect(() => loadConfig({ EDGEPLANE_DNS_PORT: 'dns' })).toThrow(/--dns-port \/ EDGEPLANE_DNS_PORT/);
  });

  it('starts with the server, answers what the API wrote, and stops with it', async () => {
    const dnsPort = await freePort();
    const config = loadConfig(
      {},
      { memory: true, port: 0, dnsPort, logLevel: 'silent', adminToken: 'operator-token-for-dns-tests', apiKey: 'dns-test-api-key' },
    );
    const server = await startServer(config);
    try {
      expect(server.dns?.port).toBe(dnsPort);
      const headers = { authorization: 'APIKey dns-test-api-key', 'content-type': 'application/json' };
      const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      expect((await post('/dns/v2/zones', { name: 'served.test' })).status).toBe(200);
      expect((await post('/dns/v2/zones/served.test/www.served.test/A', { resource_records: [{ content: ['192.0.2.80'] }] })).status).toBe(200);
      const resolver = new dnsPromises.Resolver({ timeout: 2000, tries: 1 });
      resolver.setServers([`127.0.0.1:${dnsPort}`]);
      expect(await resolver.resolve4('www.served.test')).toEqual(['192.0.2.80']);
    } finally {
      await server.close();
    }
    // Both sockets are released.
    const udp = dgram.createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(dnsPort, '127.0.0.1', resolve);
    });
    udp.close();
  });

  it('refuses to start when the DNS port is taken, and releases the HTTP port', async () => {
    const blocker = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => blocker.bind(0, '127.0.0.1', resolve));
    const config = loadConfig({}, { memory: true, port: 0, dnsPort: blocker.address().port, logLevel: 'silent', adminToken: 'operator-token-for-dns-tests' });
    await expect(startServer(config)).rejects.toThrow(/the DNS server cannot listen on 127\.0\.0\.1 port \d+/);
    blocker.close();
  });
});
