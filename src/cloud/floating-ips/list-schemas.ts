// The floating IP of a list: with the instance or load balancer it is assigned to. Apart from the record
// itself (schemas.ts), which load balancers show, so that the two do not import each other.
import { Type } from 'typebox';
import { Nullable } from '../../platform/schema.js';
import { InstanceSchema } from '../instances/schemas.js';
import { LoadBalancerSchema } from '../load-balancers/schemas.js';
import { FloatingIpSchema } from './schemas.js';

const {
  flavor: _flavor,
  fixed_ip_assignments: _fixed,
  blackhole_ports: _blackhole,
  ddos_profile: _ddos,
  instance_isolation: _isolation,
  ...summary
} = InstanceSchema.properties;

/** The instance a listed floating IP points at, as the reference summarises it. */
export const FloatingIpInstance = Type.Object({
  ...summary,
  flavor: Type.Object({ flavor_id: Type.String(), flavor_name: Type.String(), vcpus: Type.Integer(), ram: Type.Integer() }),
});

/** List items also carry the instance or load balancer the address points at (null when unassigned). */
export const FloatingIpListItem = Type.Object(
  { ...FloatingIpSchema.properties, instance: Nullable(FloatingIpInstance), loadbalancer: Nullable(LoadBalancerSchema) },
  { description: 'A floating IP with the instance or load balancer it is assigned to' },
);
