import type { FastifyInstance } from 'fastify';
import { PageOf } from '../../platform/pagination.js';
import { regionalRoutes } from '../common/regional-routes.js';
import { UuidParam } from '../common/schemas.js';
import { SnapshotCreateBody, SnapshotListQuery, SnapshotSchema, SnapshotUpdateBody } from './schemas.js';
import type { SnapshotService } from './service.js';

export function snapshotRoutes(app: FastifyInstance, snapshots: SnapshotService): void {
  regionalRoutes(app, snapshots, {
    base: '/cloud/v1/snapshots/:project_id/:region_id',
    idParam: 'snapshot_id',
    itemParams: UuidParam('snapshot_id', 'Snapshot ID'),
    create: { operationId: 'cloud.snapshots.create', summary: 'Take a snapshot of a volume (asynchronous)', body: SnapshotCreateBody },
    list: { operationId: 'cloud.snapshots.list', summary: 'List volume snapshots', querystring: SnapshotListQuery, response: PageOf(SnapshotSchema) },
    get: { operationId: 'cloud.snapshots.get', summary: 'Get a volume snapshot', response: SnapshotSchema },
    update: { operationId: 'cloud.snapshots.update', summary: 'Rename a snapshot or change its tags', body: SnapshotUpdateBody, response: SnapshotSchema },
    delete: { operationId: 'cloud.snapshots.delete', summary: 'Delete a volume snapshot (asynchronous)' },
  });
}
