// Origin shielding locations: the data centres a resource can route its origin requests through. A fixed
// catalogue, the same for every account (GET /cdn/shieldingpop_v2).

export interface ShieldingLocation {
  id: number;
  datacenter: string;
  country: string;
  city: string;
}

export const SHIELDING_LOCATIONS: readonly ShieldingLocation[] = [
  { id: 1, datacenter: 'fra-shield-1', country: 'Germany', city: 'Frankfurt' },
  { id: 2, datacenter: 'ams-shield-1', country: 'Netherlands', city: 'Amsterdam' },
  { id: 3, datacenter: 'lon-shield-1', country: 'United Kingdom', city: 'London' },
  { id: 4, datacenter: 'ash-shield-1', country: 'United States', city: 'Ashburn' },
  { id: 5, datacenter: 'sgp-shield-1', country: 'Singapore', city: 'Singapore' },
  { id: 6, datacenter: 'tyo-shield-1', country: 'Japan', city: 'Tokyo' },
];

export function shieldingLocation(id: number): ShieldingLocation | undefined {
  return SHIELDING_LOCATIONS.find((l) => l.id === id);
}
