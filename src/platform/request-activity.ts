// Whether the HTTP server is busy: the requests it is answering, when the last one arrived or ended, and
// how many arrived since a mark. Work that should run only while no client is waiting (the warm-up, the
// collection after a burst) reads it.
import type { EventEmitter } from 'node:events';

export class RequestActivity {
  /** Requests arrived and not yet answered (their response not closed). */
  answering = 0;
  /** performance.now() of the last request's arrival or end (the tracker's start before any). */
  lastRequest = performance.now();
  /** Requests arrived since the last `mark()`. */
  sinceMark = 0;

  private readonly answered = () => {
    this.answering -= 1;
    this.lastRequest = performance.now();
  };

  private readonly arrived = (_request: unknown, response: EventEmitter) => {
    this.answering += 1;
    this.sinceMark += 1;
    this.lastRequest = performance.now();
    response.once('close', this.answered);
  };

  /** Listens to `server` (an http.Server: its 'request' event, and each response's 'close'). */
  constructor(private readonly server: EventEmitter) {
    server.on('request', this.arrived);
  }

  /** Milliseconds since the last request arrived or ended, or 0 while one is being answered. */
  quietFor(): number {
    return this.answering > 0 ? 0 : performance.now() - this.lastRequest;
  }

  mark(): void {
    this.sinceMark = 0;
  }

  stop(): void {
    this.server.off('request', this.arrived);
  }
}
