// The one pass over a JSON body before it is parsed: how deep it nests, and whether its value can hold a
// NUL character or a non-finite number (when it cannot, validation skips its walk for them).
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../tests/support/app.js';
import { scanJson } from './http.js';

describe('scanJson', () => {
  it('measures nesting outside strings only, escapes honoured', () => {
    expect(scanJson('[[[1]]]', 3).tooDeep).toBe(false);
    expect(scanJson('[[[[1]]]]', 3).tooDeep).toBe(true);
    expect(scanJson('{"a":"[[[[\\"[[[["}', 3).tooDeep).toBe(false);
  });

  it.each([
    ['{"a":"x\\u0000y"}', 'a NUL escape in a value'],
    ['{"k\\u0000":1}', 'a NUL escape in a key'],
    ['[1e400]', 'a three-digit exponent'],
    ['[1E+308]', 'a signed exponent'],
    [`[${'9'.repeat(400)}]`, 'a 400-digit number'],
  ])('says %s may not be storable (%s)', (text) => {
    expect(scanJson(text, 64).storable).toBe(false);
  });

  it.each([
    ['{"a":"x\\\\u0000y","b":"\\u00e9"}', 'an escaped backslash before u0000, and other \\u escapes'],
    ['{"a":"1e400","t":true,"f":false,"n":null}', 'a long exponent inside a string, and e in true/false'],
    ['[1.5e10, -2E-99, 123456789012345678901234567890]', 'ordinary numbers'],
  ])('says %s is storable (%s)', (text) => {
    expect(scanJson(text, 64).storable).toBe(true);
  });
});

describe('bodies the scan marks storable still meet every check', () => {
  it('refuses a NUL or an infinite number anywhere in a body, also in fields the route does not declare', async () => {
    const t = await createTestApp();
    try {
      const a = await t.account();
      const post = (body: string) =>
        t.request('POST', '/cdn/resources/rule_templates', { headers: { ...a.headers, 'content-type': 'application/json' }, body });
      expect((await post('{"name":"a","rule":"/a","ruleType":0,"extra":{"deep":[1e400]}}')).statusCode).toBe(400);
      expect((await post('{"name":"a","rule":"/a","ruleType":0,"extra":{"k\\u0000":1}}')).statusCode).toBe(400);
      const fine = await post('{"name":"a","rule":"/a","ruleType":0,"extra":{"deep":[1e99]}}');
      expect(fine.statusCode, fine.body).toBe(201);
    } finally {
      await t.close();
    }
  });
});
