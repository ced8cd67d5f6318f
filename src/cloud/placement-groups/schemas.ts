// Schemas of placement groups (the provider's server groups): a policy that says whether their instances
// share a host or keep apart.
import { Type } from 'typebox';
import { StringEnum } from '../../platform/schema.js';
import { pageQuery, Text } from '../common/schemas.js';
import { POLICIES } from './hosts.js';

export const PlacementGroupCreateBody = Type.Object({
  name: Type.String({ pattern: '^[a-zA-Z0-9][a-zA-Z 0-9._\\-]{1,108}[a-zA-Z0-9._]$', maxLength: 110 }),
  policy: StringEnum(POLICIES),
});
export const PutIntoBody = Type.Object({ servergroup_id: Text(36) });
export const PlacementGroupListQuery = Type.Object(pageQuery());
export const GroupParams = Type.Object({ project_id: Type.Integer({ minimum: 1 }), region_id: Type.Integer({ minimum: 1 }), group_id: Text(36) });

export const PlacementGroupSchema = Type.Object(
  {
    servergroup_id: Type.String(),
    name: Type.String(),
    policy: Type.String({ description: 'affinity, anti-affinity or soft-anti-affinity' }),
    instances: Type.Array(Type.Object({ instance_id: Type.String(), instance_name: Type.String() })),
    project_id: Type.Integer(),
    region_id: Type.Integer(),
    region: Type.String(),
  },
  { description: 'A placement group: instances on one host, or kept apart' },
);
export const PlacementGroupList = Type.Object({ count: Type.Integer({ minimum: 0 }), results: Type.Array(PlacementGroupSchema) });
