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
});
