import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';

describe('AppError', () => {
  it('captures no stack trace for a client error, a full one for a server error, and leaves the limit as it was', () => {
    const limit = Error.stackTraceLimit;
    const client = new AppError('not_found', 'Not found.');
    expect(client.stack?.split('\n').filter((line) => line.trim().startsWith('at '))).toEqual([]);
    const server = new AppError('internal', 'Broken.');
    expect(server.stack?.split('\n').some((line) => line.includes('errors.test.ts'))).toBe(true);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(client.status).toBe(404);
  });

  it("captures no stack for a fault rule's injected 500, and keeps it injected under another code", () => {
    const injected = new AppError('internal', 'Injected fault 1: answering 500.', { injected: true });
    expect(injected.stack?.split('\n').filter((line) => line.trim().startsWith('at '))).toEqual([]);
    expect(injected.as('service_unavailable').injected).toBe(true);
    expect(new AppError('internal', 'Broken.').injected).toBe(false);
  });
});
