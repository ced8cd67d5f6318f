// Drives the server clock (src/platform/clock.ts). Everything time-based reads that clock, and its change
// listeners (task progress, retention) run inside the call, so the answer already reflects the new time.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Clock } from '../../platform/clock.js';
import { bodyField, invalid } from '../../platform/errors.js';

const ClockSchema = Type.Object({
  now: Type.String({ format: 'date-time', description: 'Current server time' }),
  epochMs: Type.Integer({ description: 'The same instant in epoch milliseconds' }),
  frozen: Type.Boolean({ description: 'Whether time stands still' }),
  offsetMs: Type.Number({ description: 'Server time minus real time' }),
});

const SetSchema = Type.Object(
  {
    time: Type.Optional(Type.String({ format: 'date-time', description: 'The new server time' })),
    // Bounded to the last instant a date-time can write (9999-12-31): past it every time field fails to serialize.
    epochMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 253_402_300_799_999, description: 'The new server time in epoch milliseconds' })),
  },
  { additionalProperties: false },
);
const AdvanceSchema = Type.Object(
  { seconds: Type.Number({ minimum: 0, maximum: 10 * 365 * 86400, description: 'How far to move time forward (fractions allowed)' }) },
  { additionalProperties: false },
);

const tags = ['Edgeplane control'];
const config = { access: 'operator' as const };

export function clockRoutes(app: FastifyInstance, clock: Clock): void {
  // Answer only once the work the change made due (task steps, retention) is done: "at once, in order".
  const state = async () => {
    await clock.settled();
    return { ...clock.state(), epochMs: clock.now() };
  };
  const response = { 200: ClockSchema };

  app.get('/_edgeplane/clock', { config, schema: { operationId: 'control.clock.get', tags, summary: 'Read the server clock', response } }, async () => state());

  app.post(
    '/_edgeplane/clock/freeze',
    { config, schema: { operationId: 'control.clock.freeze', tags, summary: 'Stop time at the current instant', response } },
    async () => {
      clock.freeze();
      return state();
    },
  );

  app.post(
    '/_edgeplane/clock/resume',
    { config, schema: { operationId: 'control.clock.resume', tags, summary: 'Let time flow again from the current (possibly moved) instant', response } },
    async () => {
      clock.resume();
      return state();
    },
  );

  app.post<{ Body: Static<typeof SetSchema> }>(
    '/_edgeplane/clock/set',
    { config, schema: { operationId: 'control.clock.set', tags, summary: 'Jump to a given time (frozen stays frozen)', body: SetSchema, response } },
    async (request) => {
      const { time, epochMs } = request.body;
      if ((time === undefined) === (epochMs === undefined)) throw invalid([bodyField([], 'give exactly one of time or epochMs', 'missing')]);
      clock.set(epochMs ?? Date.parse(time!));
      return state();
    },
  );

  app.post<{ Body: Static<typeof AdvanceSchema> }>(
    '/_edgeplane/clock/advance',
    {
      config,
      schema: { operationId: 'control.clock.advance', tags, summary: 'Move time forward; due work happens at once, in order', body: AdvanceSchema, response },
    },
    async (request) => {
      clock.advance(Math.round(request.body.seconds * 1000));
      return state();
    },
  );
}
