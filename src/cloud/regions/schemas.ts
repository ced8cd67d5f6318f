import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';

export const RegionSchema = Type.Object(
  {
    id: Type.Integer(),
    display_name: Type.String(),
    slug: Type.String(),
    country: Type.String(),
    state: StringEnum(['ACTIVE', 'DELETED', 'DELETING', 'DELETION_FAILED', 'INACTIVE', 'MAINTENANCE', 'NEW'], {
      description: 'Only ACTIVE regions accept operations',
    }),
    access_level: StringEnum(['core', 'edge'], { description: 'core: latest hardware; edge: lower cost' }),
    zone: Nullable(StringEnum(['AMERICAS', 'APAC', 'EMEA', 'RUSSIA_AND_CIS'])),
    has_kvm: Type.Boolean({ description: 'Virtual machines available' }),
    has_baremetal: Type.Boolean(),
    has_basic_vm: Type.Boolean(),
    has_k8s: Type.Boolean({ description: 'Managed Kubernetes available' }),
    has_dbaas: Type.Boolean({ description: 'Managed PostgreSQL available' }),
    has_ai: Type.Boolean(),
    has_ai_gpu: Type.Boolean(),
    has_sfs: Type.Boolean(),
    has_ddos: Type.Boolean(),
    available_volume_types: Nullable(Type.Array(Type.String())),
    file_share_types: Nullable(Type.Array(StringEnum(['standard', 'vast']))),
    coordinates: Nullable(Type.Object({ latitude: Type.String(), longitude: Type.String() })),
    created_at: Type.String({ format: 'date-time' }),
    created_on: Type.String({ format: 'date-time' }),
    ddos_endpoint_id: Nullable(Type.Integer()),
    endpoint_type: StringEnum(['admin', 'internal', 'public']),
    external_network_id: Nullable(Type.String()),
    keystone_id: Type.Integer(),
    keystone_name: Type.String(),
    metrics_database_id: Nullable(Type.Integer()),
    task_id: Nullable(Type.String()),
    vlan_physical_network: Type.String(),
  },
  { description: 'A region of the cloud' },
);

export const RegionListQuery = Type.Object({
  limit: Type.Integer({ minimum: 0, maximum: 1000, default: 1000 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  display_name: Type.Optional(Type.String({ maxLength: 255 })),
  order_by: Type.Optional(StringEnum(['created_at.asc', 'created_at.desc', 'display_name.asc', 'display_name.desc'])),
  product: Type.Optional(StringEnum(['containers', 'inference'])),
  show_volume_types: Type.Optional(Type.Boolean()),
});
