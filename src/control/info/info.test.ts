import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../tests/support/app.js';
import { coverageOf, operationKey } from './coverage.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('GET /_edgeplane/info', () => {
  it('reports version, engine, schema version, clock, stored objects and coverage', async () => {
    const a = await t.account();
    await t.request('POST', '/_edgeplane/faults', { headers: t.operator, body: { path: '/x', status: 500 } });
    await t.request('GET', '/iam/clients/me', { headers: a.headers });
    const res = await t.request('GET', '/_edgeplane/info', { headers: t.operator });
    expect(res.statusCode).toBe(200);
    const info = res.json();
    expect(info).toMatchObject({ engine: expect.stringMatching(/sqlite|postgres/), taskMode: 'instant', schemaVersion: expect.stringMatching(/^\d{3}_/) });
    expect(info.counts.tables.clients).toBe(1);
    expect(info.counts.tables.users).toBe(1);
    expect(info.counts.faults).toBe(1);
    expect(info.counts.journal).toBeGreaterThanOrEqual(1);
    expect(info.clock.frozen).toBe(false);
    expect(info.coverage.reference).toBeGreaterThan(1000);
    // One route may answer several reference operations (three PATCH spellings of a CDN resource).
    expect(info.coverage.implemented).toBeGreaterThanOrEqual(info.operations.filter((op: { inReference: boolean }) => op.inReference).length);
    expect(info.operations).toContainEqual({
      method: 'GET',
      path: '/iam/clients/me',
      operationId: 'iam.account.get',
      inReference: true,
      implementation: 'modelled',
    });
    expect(info.operations).toContainEqual({
      method: 'GET',
      path: '/_edgeplane/info',
      operationId: 'control.info',
      inReference: false,
      implementation: 'modelled',
    });
    expect(info.operations).toContainEqual({
      method: 'POST',
      path: '/fastedge/v1/kv',
      operationId: 'catalogue.addStore',
      inReference: true,
      implementation: 'catalogue',
    });
    // Every reference operation is answered, by a modelled product or by the catalogue engine.
    expect(info.coverage).toMatchObject({ reference: 1017, implemented: 1017 });
    expect(info.coverage.modelled + info.coverage.catalogue).toBe(1017);
    expect(info.coverage.areas.find((area: { area: string }) => area.area === 'iam').implemented).toBeGreaterThan(0);
  });

  it('is operator-only', async () => {
    expect((await t.request('GET', '/_edgeplane/info')).statusCode).toBe(401);
  });

  it('lists the control operations in /openapi.json under their own tag', async () => {
    const doc = (await t.request('GET', '/openapi.json')).json();
    const ops = Object.values(doc.paths as Record<string, Record<string, { tags?: string[]; operationId?: string }>>).flatMap((item) => Object.values(item));
    const control = ops.filter((op) => op.tags?.includes('Edgeplane control')).map((op) => op.operationId);
    expect(control).toEqual(
      expect.arrayContaining([
        'control.clock.advance',
        'control.faults.create',
        'control.journal.list',
        'control.state.export',
        'control.state.import',
        'control.state.reset',
        'control.seed',
        'control.info',
      ]),
    );
  });
});

describe('coverage', () => {
  it('matches operations whatever the path parameters are called', () => {
    expect(operationKey('get', '/cdn/resources/:id/rules/:ruleId')).toBe(operationKey('GET', '/cdn/resources/{resource_id}/rules/{rule_id}'));
    const coverage = coverageOf(
      [
        { method: 'GET', path: '/a/:x' },
        { method: 'POST', path: '/b' },
      ],
      [
        { method: 'GET', path: '/a/{id}' },
        { method: 'DELETE', path: '/a/{id}' },
        { method: 'GET', path: '/c' },
      ],
    );
    expect(coverage).toEqual({
      reference: 3,
      implemented: 1,
      modelled: 1,
      catalogue: 0,
      percent: 33.3,
      areas: [
        { area: 'a', reference: 2, implemented: 1, modelled: 1, catalogue: 0 },
        { area: 'c', reference: 1, implemented: 0, modelled: 0, catalogue: 0 },
      ],
    });
  });
});
