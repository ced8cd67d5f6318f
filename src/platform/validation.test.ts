import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { keepBodyText } from './json-body-text.js';
import { ajvErrorsToFields, type BodyCheck, bodyChecker, type BodyThread, createSchemaCompiler, finiteOnly, makeAjv, markStorable } from './validation.js';

const ajv = new Ajv({ allErrors: true, strict: false });
const fieldsFor = (schema: object, data: unknown) => {
  const validate = ajv.compile(schema);
  expect(validate(data)).toBe(false);
  return ajvErrorsToFields(validate.errors ?? [], 'body');
};

describe('union errors', () => {
  const listener = {
    type: 'object',
    properties: {
      target: {
        anyOf: [
          { type: 'string' },
          { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer', maximum: 65535 } } },
          { type: 'object', required: ['address'], properties: { address: { type: 'string' }, port: { type: 'integer' }, weight: { type: 'integer' } } },
        ],
      },
    },
  };

  it('name the closest form and what failed in it', () => {
    // Form 3 lacks one field; form 2 lacks one and refuses another.
    expect(fieldsFor(listener, { target: { port: 70000 } })).toEqual([
      {
        location: 'body',
        path: ['target'],
        message: 'Input does not match any allowed form (closest: form 3, where address: Field required)',
        type: 'value_error',
      },
    ]);
    expect(fieldsFor(listener, { target: { name: 'web', port: 70000, weight: 'x' } })).toEqual([
      {
        location: 'body',
        path: ['target'],
        message: 'Input does not match any allowed form (closest: form 2, where port: Input must be <= 65535)',
        type: 'value_error',
      },
    ]);
  });

  it('say no more than that when the input has the shape of no form', () => {
    expect(fieldsFor(listener, { target: 7 })).toEqual([
      { location: 'body', path: ['target'], message: 'Input does not match any allowed form', type: 'value_error' },
    ]);
  });

  it("judge each item of a list of unions on its own errors: item 1's union does not take item 10's", () => {
    const targets = Array.from({ length: 11 }, (_, i) => (i === 1 ? 7 : i === 10 ? { name: 'web', port: 70000 } : 'ok'));
    const fields = fieldsFor({ type: 'object', properties: { targets: { type: 'array', items: listener.properties.target } } }, { targets });
    expect(fields).toEqual([
      { location: 'body', path: ['targets', 1], message: 'Input does not match any allowed form', type: 'value_error' },
      {
        location: 'body',
        path: ['targets', 10],
        message: 'Input does not match any allowed form (closest: form 2, where port: Input must be <= 65535)',
        type: 'value_error',
      },
    ]);
  });

  it('name at most the first 100 failing fields', () => {
    const fields = fieldsFor({ type: 'array', items: listener.properties.target }, Array(500).fill(7));
    expect(fields).toHaveLength(100);
    expect(fields[99].path).toEqual([99]);
  });

  it('look no further than the errors of the fields they name: the rest of 9,000 wrong items is never placed', () => {
    const validate = ajv.compile({ type: 'array', items: listener.properties.target });
    expect(validate(Array(9_000).fill({ port: 'x' }))).toBe(false);
    const errors = validate.errors ?? [];
    const named = ajvErrorsToFields(errors, 'body');
    // Past the 150th item, reading where an error of a form lies throws: the refusal must not need it.
    const unread = errors.map((error) => {
      if (error.keyword === 'anyOf' || Number(error.instancePath.split('/')[1]) < 150) return error;
      return Object.defineProperty({ ...error }, 'instancePath', {
        get: () => {
          throw new Error(`placed ${error.instancePath}`);
        },
      });
    });
    expect(ajvErrorsToFields(unread, 'body')).toEqual(named);
    expect(named).toHaveLength(100);
    expect(named[99]).toMatchObject({ path: [99], message: expect.stringMatching(/closest: form 2/) });
    // Mapped again, the same errors name the same fields (each union's forms are gathered afresh).
    expect(ajvErrorsToFields(errors, 'body')).toEqual(named);
  });
});

describe('bodies of many items, checked in a thread first', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string', default: 'unnamed' },
      targets: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'object', required: ['name'], properties: { name: { type: 'string' } } }] } },
    },
    required: ['targets'],
  };
  const checks: BodyCheck[] = [];
  const inThread = bodyChecker((prepared) => finiteOnly(() => makeAjv('api-body').compile(prepared)));
  const compilerWith = (thread?: BodyThread) => createSchemaCompiler(undefined, thread)({ schema, httpPart: 'body', url: '/things', method: 'POST' });
  const threaded = compilerWith(async (check) => {
    checks.push(check);
    return inThread(structuredClone(check));
  });
  const mainOnly = compilerWith();
  /** A parsed body as the JSON parser leaves one of many items: marked storable, its text kept. */
  const parsed = (value: unknown) => {
    const text = JSON.stringify(value);
    const data = JSON.parse(text) as Record<string, unknown>;
    markStorable(data);
    keepBodyText(data, text);
    return data;
  };

  it('refuse with the fields the main thread names, and send the thread what to drop first', async () => {
    const body = { targets: [...Array(2_000).fill(7), { nome: 'x' }], extra: 1 };
    const answer = threaded(parsed(body));
    expect(answer).toBeInstanceOf(Promise);
    expect(await answer).toBe(false);
    const fields = ajvErrorsToFields(threaded.errors ?? [], 'query');
    expect(mainOnly(structuredClone(body))).toBe(false);
    expect(fields).toEqual(ajvErrorsToFields(mainOnly.errors ?? [], 'query'));
    expect(fields).toHaveLength(100);
    expect(checks.at(-1)?.prune).toBeDefined();
  });

  it('accept as the main thread does, which still fills in defaults and drops undeclared members', async () => {
    const data = parsed({ targets: Array(2_000).fill('ok'), extra: 1 });
    expect(await threaded(data)).toBe(true);
    expect(data).toEqual({ name: 'unnamed', targets: Array(2_000).fill('ok') });
  });

  it('check on the main thread a body that kept no text, and one whose thread could not answer', async () => {
    const before = checks.length;
    expect(threaded({ targets: [7] })).toBe(false);
    expect(checks).toHaveLength(before);
    const failing = compilerWith(() => Promise.reject(new Error('thread stopped')));
    expect(await failing(parsed({ targets: Array(2_000).fill(7) }))).toBe(false);
    expect(ajvErrorsToFields(failing.errors ?? [], 'body')).toHaveLength(100);
  });
});
