// Control API of the task engine (/_edgeplane/tasks, operator token): the progression mode, globally
// or per task type, and in manual mode advancing one task or all pending tasks a step or to the end.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../platform/errors.js';
import { Nullable, StringEnum } from '../../platform/schema.js';
import type { TaskEngine } from '../../platform/tasks/engine.js';
import { typed } from '../../platform/typed.js';

const Mode = Type.Object({ mode: StringEnum(['instant', 'realistic', 'manual']), speed: Type.Number() });
const ModeBody = Type.Object(
  {
    mode: StringEnum(['instant', 'realistic', 'manual']),
    speed: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000, description: 'realistic mode: durations are divided by this factor' })),
    task_type: Type.Optional(Type.String({ description: 'Only this task type (default: every type, clearing per-type settings)' })),
  },
  { additionalProperties: false },
);
const AdvanceBody = Type.Object(
  {
    task_id: Type.Optional(Type.String({ description: 'One task; omit for every pending task' })),
    task_type: Type.Optional(Type.String()),
    to: StringEnum(['step', 'end'], { default: 'step', description: 'step: NEW -> RUNNING or RUNNING -> done; end: straight to FINISHED or ERROR' }),
  },
  { additionalProperties: false },
);
const Modes = Type.Object({ default: Mode, task_types: Type.Record(Type.String(), Mode), registered: Type.Array(Type.String()) });

export function taskControlRoutes(fastify: FastifyInstance, engine: TaskEngine): void {
  const app = typed(fastify);
  const base = { config: { access: 'operator' as const } };
  const tags = ['Edgeplane control'];
  const modes = () => ({ ...engine.modes(), registered: engine.registry.names() });
  app.get(
    '/_edgeplane/tasks/mode',
    { ...base, schema: { tags, operationId: 'control.tasks.mode.get', summary: 'Progression modes of cloud tasks', response: { 200: Modes } } },
    async () => modes(),
  );
  app.put(
    '/_edgeplane/tasks/mode',
    {
      ...base,
      schema: {
        tags,
        operationId: 'control.tasks.mode.set',
        summary: 'Set the progression mode globally or for one task type',
        body: ModeBody,
        response: { 200: Modes },
      },
    },
    async (request) => {
      const body = request.body;
      if (body.task_type && !engine.registry.has(body.task_type))
        throw new AppError('not_found', `No task type ${body.task_type}; registered: ${engine.registry.names().join(', ')}`);
      await engine.setMode({ mode: body.mode, speed: body.speed ?? 1 }, body.task_type);
      return modes();
    },
  );
  app.post(
    '/_edgeplane/tasks/advance',
    {
      ...base,
      schema: {
        tags,
        operationId: 'control.tasks.advance',
        summary: 'Advance one or all pending tasks a step or to the end',
        body: AdvanceBody,
        response: { 200: Type.Object({ advanced: Type.Array(Type.String()), count: Type.Integer() }) },
      },
    },
    async (request) => {
      const body = request.body;
      const advanced = await engine.advance({ taskId: body.task_id, types: body.task_type ? [body.task_type] : undefined, to: body.to });
      if (body.task_id && advanced.length === 0) throw new AppError('not_found', `Task ${body.task_id} is not pending (or is held by another process)`);
      return { advanced, count: advanced.length };
    },
  );
  const Status = Type.Object({
    pending: Type.Integer({ description: 'Tasks NEW or RUNNING' }),
    next_due: Nullable(Type.String({ description: 'Server-clock time the next step is due; null when none is scheduled (or all are held in manual mode)' })),
  });
  const status = async () => {
    const s = await engine.status();
    return { pending: s.pending, next_due: s.nextDue === null ? null : new Date(s.nextDue).toISOString() };
  };
  app.get(
    '/_edgeplane/tasks/status',
    {
      ...base,
      schema: { tags, operationId: 'control.tasks.status', summary: 'How many tasks are unfinished and when the next step is due', response: { 200: Status } },
    },
    status,
  );
  app.post(
    '/_edgeplane/tasks/run-due',
    { ...base, schema: { tags, operationId: 'control.tasks.runDue', summary: 'Run every due step now, then report what is left', response: { 200: Status } } },
    async () => {
      await engine.kick();
      return status();
    },
  );
}
