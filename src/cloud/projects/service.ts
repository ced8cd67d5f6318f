// Projects: every client has one default project from its first cloud call; the others are created
// and deleted by the client. Deleting a project is a task that removes everything in it.
import { Static } from 'typebox';
import { AppError, notFound } from '../../platform/errors.js';
import type { Clock } from '../../platform/clock.js';
import { zonedTime } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import type { ProjectSchema, ProjectCreateBody, ProjectUpdateBody, ProjectListQuery } from './schemas.js';
import type { ProjectRow, ProjectStore } from './store.js';

type Project = Static<typeof ProjectSchema>;

export const DEFAULT_PROJECT_NAME = 'default';

export class ProjectService {
  /** Clients known to have their default project, so the check costs one query per client per process. */
  private readonly withDefault = new Set<number>();
  operations!: Operations;

  constructor(
    private readonly store: ProjectStore,
    private readonly clock: Clock,
  ) {}

  /** Whether the client's default project is known to exist already (ensureDefault would do nothing). */
  hasDefault(clientId: number): boolean {
    return this.withDefault.has(clientId);
  }

  async ensureDefault(clientId: number): Promise<void> {
    if (this.withDefault.has(clientId)) return;
    if (!(await this.store.findDefault(clientId))) {
      try {
        await this.store.insert({
          client_id: clientId,
          name: DEFAULT_PROJECT_NAME,
          description: 'Default project',
          is_default: 1,
          state: 'ACTIVE',
          task_id: null,
          created_at: this.clock.now(),
          deleted_at: null,
        });
      } catch (error) {
        // Two first requests raced; the unique index kept one default. Anything else is real.
        if (!(await this.store.findDefault(clientId))) throw error;
      }
    }
    this.withDefault.add(clientId);
  }

  async list(clientId: number, query: Static<typeof ProjectListQuery>) {
    const filter = { name: query.name, includeDeleted: query.include_deleted, orderBy: query.order_by };
    const [count, rows] = await Promise.all([this.store.count(clientId, filter), this.store.list(clientId, filter, query)]);
    return { count, results: rows.map(present) };
  }

  /** Whether `get` would find the project. */
  async exists(clientId: number, id: number): Promise<boolean> {
    return (await this.live(clientId, id)) !== undefined;
  }

  async get(clientId: number, id: number): Promise<Project> {
    return present(await this.row(clientId, id));
  }

  async create(clientId: number, body: Static<typeof ProjectCreateBody>): Promise<Project> {
    const id = await this.store.insert({
      client_id: clientId,
      name: body.name,
      description: body.description ?? null,
      is_default: 0,
      state: 'ACTIVE',
      task_id: null,
      created_at: this.clock.now(),
      deleted_at: null,
    });
    return this.get(clientId, id);
  }

  async update(clientId: number, id: number, body: Static<typeof ProjectUpdateBody>): Promise<Project> {
    await this.row(clientId, id);
    const values: Partial<ProjectRow> = {};
    if (body.name !== undefined) values.name = body.name;
    if (body.description !== undefined) values.description = body.description;
    if (Object.keys(values).length > 0) await this.store.update(clientId, id, values);
    return this.get(clientId, id);
  }

  async delete(caller: Caller, id: number): Promise<{ tasks: string[]; id: string }> {
    const project = await this.row(caller.clientId, id);
    if (project.is_default) throw new AppError('bad_request', `Project ${id} is the default project and cannot be deleted`);
    if (project.state !== 'ACTIVE') throw new AppError('conflict', `Project ${id} is already being deleted`);
    const task = await this.operations.submit(caller, { projectId: id, regionId: null }, 'delete_project', { project_id: id }, async (trx, taskId) => {
      await this.store.withDb(trx).update(caller.clientId, id, { state: 'DELETING', task_id: taskId });
    });
    return { tasks: [task], id: String(id) };
  }

  /** The project a resource operation runs in: it must be the caller's and ACTIVE. */
  async requireActive(clientId: number, id: number): Promise<ProjectRow> {
    await this.ensureDefault(clientId);
    const project = await this.row(clientId, id);
    if (project.state !== 'ACTIVE') throw new AppError('conflict', `Project ${id} is ${project.state}`);
    return project;
  }

  private async row(clientId: number, id: number): Promise<ProjectRow> {
    const project = await this.live(clientId, id);
    if (!project) throw notFound(`Project ${id}`);
    return project;
  }

  /** The client's project, unless it was deleted (the client's default project made first). */
  private async live(clientId: number, id: number): Promise<ProjectRow | undefined> {
    await this.ensureDefault(clientId);
    const project = await this.store.get(clientId, id);
    return project && project.deleted_at === null ? project : undefined;
  }
}

function present(row: ProjectRow): Project {
  return {
    id: Number(row.id),
    client_id: Number(row.client_id),
    name: row.name,
    description: row.description,
    is_default: row.is_default === 1,
    state: row.state,
    task_id: row.task_id,
    created_at: zonedTime(row.created_at),
    deleted_at: row.deleted_at === null ? null : zonedTime(row.deleted_at),
  };
}
