// A request as an http.Server emits it, for units that watch a server's activity (the warm-up, the
// collection once idle) without a real server.
import { EventEmitter } from 'node:events';

/** A request arriving at `server`; its response closes when `close` is called. */
export function emitRequest(server: EventEmitter): { close(): void } {
  const response = new EventEmitter();
  server.emit('request', {}, response);
  return { close: () => response.emit('close') };
}
