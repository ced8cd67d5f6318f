// The authoritative DNS listener: UDP and TCP on one port, answering from the same database as the API
// (every query reads the store, so what the API wrote is answered at once, on every node). Off unless
// `--dns-port` is set; started and closed with the HTTP server (src/server.ts).
import dgram from 'node:dgram';
import net from 'node:net';
import type { Database } from '../../platform/db/index.js';
import type { Clock } from '../../platform/clock.js';
import { Resolver } from '../resolver/resolve.js';
import { AuthorityStore } from '../resolver/store.js';
import { QueryRecorder } from '../statistics/recorder.js';
import { CountStore } from '../statistics/store.js';
import { DnsHandler } from './handler.js';

export interface DnsListenerOptions {
  host: string;
  /** The port for both UDP and TCP; 0 picks a free one (for tests). */
  port: number;
  db: Database;
  clock: Clock;
  onError: (error: unknown) => void;
}

export interface DnsListener {
  /** The port UDP and TCP listen on. */
  port: number;
  host: string;
  close(): Promise<void>;
}

const TCP_IDLE_MS = 10_000;
const MAX_TCP_CONNECTIONS = 512;
/** Queries one TCP connection may have waiting for their answers. */
const MAX_TCP_PENDING = 64;
const BIND_ATTEMPTS = 8;

function udpSocket(host: string): dgram.Socket {
  return dgram.createSocket({ type: net.isIPv6(host) ? 'udp6' : 'udp4', reuseAddr: false });
}

/** Serves one TCP connection: two-byte length prefixed messages, answered in order. */
function serveTcp(socket: net.Socket, handler: DnsHandler, onError: (error: unknown) => void): void {
  let buffer = Buffer.alloc(0);
  let queue = Promise.resolve();
  let pending = 0;
  socket.setTimeout(TCP_IDLE_MS, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    while (buffer.length >= 2 && buffer.length >= 2 + buffer.readUInt16BE(0)) {
      const message = buffer.subarray(2, 2 + buffer.readUInt16BE(0));
      buffer = buffer.subarray(2 + message.length);
      // A client that sends far more than it reads is cut off rather than queued without end.
      if (++pending > MAX_TCP_PENDING) return socket.destroy();
      queue = queue
        .then(() => handler.handle(Buffer.from(message), { kind: 'tcp', address: socket.remoteAddress ?? '' }))
        .then((answer) => {
          if (!answer || socket.destroyed) return;
          const length = Buffer.alloc(2);
          length.writeUInt16BE(answer.length);
          socket.write(Buffer.concat([length, answer]));
        })
        .catch(onError)
        .finally(() => {
          pending -= 1;
        });
    }
  });
}

async function bindUdp(host: string, port: number, handler: DnsHandler, onError: (error: unknown) => void): Promise<dgram.Socket> {
  const socket = udpSocket(host);
  socket.on('message', (message, remote) => {
    handler
      .handle(message, { kind: 'udp', address: remote.address })
      .then((answer) => answer && socket.send(answer, remote.port, remote.address))
      .catch(onError);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      socket.on('error', onError);
      resolve();
    });
  });
  return socket;
}

interface TcpListener {
  server: net.Server;
  /** Open connections, so close() need not wait for their idle timeout. */
  sockets: Set<net.Socket>;
}

async function listenTcp(host: string, port: number, handler: DnsHandler, onError: (error: unknown) => void): Promise<TcpListener> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serveTcp(socket, handler, onError);
  });
  server.maxConnections = MAX_TCP_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, sockets };
}

/** Binds UDP then TCP on the same port; with port 0 the free UDP port is tried for TCP, a few times. */
async function bindBoth(options: DnsListenerOptions, handler: DnsHandler): Promise<{ udp: dgram.Socket; tcp: TcpListener }> {
  for (let attempt = 1; ; attempt++) {
    const udp = await bindUdp(options.host, options.port, handler, options.onError);
    try {
      return { udp, tcp: await listenTcp(options.host, udp.address().port, handler, options.onError) };
    } catch (error) {
      udp.close();
      if (options.port !== 0 || attempt >= BIND_ATTEMPTS || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
}

export async function startDnsListener(options: DnsListenerOptions): Promise<DnsListener> {
  const recorder = new QueryRecorder(new CountStore(options.db.kysely), options.clock, options.onError);
  const handler = new DnsHandler(new Resolver(new AuthorityStore(options.db)), recorder, options.onError);
  const { udp, tcp } = await bindBoth(options, handler);
  const port = udp.address().port;
  let closing: Promise<void> | undefined;
  return {
    port,
    host: options.host,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => udp.close(() => resolve()));
        await new Promise<void>((resolve) => {
          tcp.server.close(() => resolve());
          for (const socket of tcp.sockets) socket.destroy();
        });
        await recorder.flush();
      })();
      return closing;
    },
  };
}
