import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { byPositiveId, positiveIdOf } from './existence.js';
import { trackRoutes } from './http.js';

describe('positiveIdOf', () => {
  it('reads a positive integer in the form validation writes back', () => {
    expect(positiveIdOf('1')).toBe(1);
    expect(positiveIdOf('76')).toBe(76);
    expect(positiveIdOf(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('leaves every other form to the route (undefined)', () => {
    for (const text of [
      undefined,
      '',
      '0',
      '-1',
      '+1',
      '01',
      ' 1',
      '1 ',
      '1.0',
      '1e3',
      '0x10',
      'abc',
      String(Number.MAX_SAFE_INTEGER + 1),
      '12345678901234567',
    ]) {
      expect(positiveIdOf(text), String(text)).toBeUndefined();
    }
  });
});

describe('existence checks of GET routes', () => {
  it('are found by path pattern, whatever its parameter names, with the access the route needs; other routes have none', async () => {
    const app = Fastify();
    const routes = trackRoutes(app);
    const check = () => true;
    app.get('/things/:thing_id', { config: { exists: check } }, async () => ({}));
    app.get('/managed/:id', { config: { exists: check, access: 'manage', onBehalf: true } }, async () => ({}));
    app.get('/plain/:id', async () => ({}));
    app.post('/posted/:id', { config: { exists: check } }, async () => ({}));
    await app.ready();
    expect(routes.existenceCheck('/things/{id}')).toEqual({ check, access: 'read', onBehalf: false });
    expect(routes.existenceCheck('/managed/{x}')).toEqual({ check, access: 'manage', onBehalf: true });
    expect(routes.existenceCheck('/plain/{id}')).toBeUndefined();
    expect(routes.existenceCheck('/posted/{id}')).toBeUndefined();
    await app.close();
  });

  it("byPositiveId runs the check for an id in validation's form only", () => {
    expect(byPositiveId('12', (id) => id === 12)).toBe(true);
    expect(byPositiveId('012', () => true)).toBeUndefined();
  });
});
