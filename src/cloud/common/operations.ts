// The one way a cloud call starts asynchronous work: check where it runs (project, region,
// capability), then write the resource rows and the task row in one transaction, then let the
// engine run the task (at once in instant mode, so it is FINISHED before the first poll).
import type { Kysely } from 'kysely';
import type { Caller } from '../../platform/auth/caller.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/index.js';
import type { TaskEngine } from '../../platform/tasks/engine.js';
import type { TaskPlace } from '../../platform/tasks/types.js';
import type { ProjectService } from '../projects/service.js';
import type { Capability, RegionDefinition } from '../regions/catalogue.js';
import type { RegionService } from '../regions/service.js';
import { ResourceStore, type Scope } from './resource-store.js';

export class Operations {
  readonly resources: ResourceStore;

  constructor(
    private readonly db: Database,
    readonly clock: Clock,
    readonly engine: TaskEngine,
    readonly projects: ProjectService,
    readonly regions: RegionService,
  ) {
    this.resources = new ResourceStore(db.kysely);
  }

  /** Checks the project is the caller's and ACTIVE, and the region ACTIVE with the capability. */
  async place(caller: Caller, projectId: number, regionId: number, capability: Capability): Promise<{ scope: Scope; region: RegionDefinition }> {
    await this.projects.requireActive(caller.clientId, projectId);
    const region = this.regions.require(regionId, capability);
    return { scope: { clientId: caller.clientId, projectId, regionId }, region };
  }

  /** Reads need the project to be the caller's; the region only has to exist. */
  async readable(caller: Caller, projectId: number, regionId: number): Promise<Scope> {
    await this.projects.requireActive(caller.clientId, projectId);
    this.regions.get(regionId);
    return { clientId: caller.clientId, projectId, regionId };
  }

  /** Work done at once (no task), in one transaction, within the client's share of the connections (Database.asClient). */
  async transaction<T>(owner: { clientId: number }, work: (trx: Kysely<any>) => Promise<T>): Promise<T> {
    return this.db.asClient(owner.clientId, () => this.db.kysely.transaction().execute(work));
  }

  /**
   * Writes one task of `type` and the rows `write` adds, in one transaction, and runs the task as the
   * engine's mode says (TaskEngine.submit). Returns the task ID.
   */
  async submit(caller: Caller, place: TaskPlace, type: string, data: unknown, write: (trx: Kysely<any>, taskId: string) => Promise<void>): Promise<string> {
    return this.engine.submit(caller, place, type, async (trx, taskId) => {
      await write(trx, taskId);
      return data;
    });
  }
}
