// The load balancer flavors every region with networks offers: the provider's lb1 line, one amphora
// pair sized by vCPUs and RAM (MiB).

export interface LbFlavor {
  flavor_id: string;
  flavor_name: string;
  vcpus: number;
  ram: number;
}

const flavor = (vcpus: number, ramGib: number): LbFlavor => {
  const name = `lb1-${vcpus}-${ramGib}`;
  return { flavor_id: name, flavor_name: name, vcpus, ram: ramGib * 1024 };
};

export const LB_FLAVORS: readonly LbFlavor[] = [flavor(1, 2), flavor(2, 4), flavor(4, 8), flavor(8, 16)];

/** What a create without `flavor` gets. */
export const DEFAULT_LB_FLAVOR = LB_FLAVORS[0];

export function lbFlavor(name: string): LbFlavor | undefined {
  return LB_FLAVORS.find((f) => f.flavor_id === name);
}

/** Monthly price of a flavor in EUR, for `include_prices` (hourly is that over 730 hours). */
export function lbFlavorPrice(f: LbFlavor): { price_per_month: number; price_per_hour: number } {
  const month = Math.round((f.vcpus * 9.5 + (f.ram / 1024) * 2.5) * 100) / 100;
  return { price_per_month: month, price_per_hour: Math.round((month / 730) * 10_000) / 10_000 };
}
