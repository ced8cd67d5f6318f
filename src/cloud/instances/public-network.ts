// The provider's public network and its subnet: one per region, with fixed IDs, holding the addresses
// of `external` interfaces.

const regionSuffix = (regionId: number) => String(regionId).padStart(12, '0');

export const publicNetworkId = (regionId: number) => `00000000-0000-4000-8000-${regionSuffix(regionId)}`;

export const publicSubnetId = (regionId: number) => `00000000-0000-4000-8001-${regionSuffix(regionId)}`;

/**
 * An address on the public network for an external port made at `now` (the `offset`th of its request),
 * from the documentation range 203.0.113.0/24. Public addresses are the provider's: this server hands
 * them out by time and does not track them.
 */
export const publicAddress = (now: number, offset: number) => `203.0.113.${((now + offset) % 250) + 2}`;
