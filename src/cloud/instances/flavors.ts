// The flavor catalogue of the simulated cloud (same in every region offering virtual machines).

export interface Flavor {
  flavor_id: string;
  flavor_name: string;
  vcpus: number;
  ram: number;
  architecture: string;
  os_type: string;
  disabled: boolean;
  hardware_description: { ram: string; vcpus: string };
}

const make = (name: string, vcpus: number, ramGb: number, architecture = 'x86_64'): Flavor => ({
  flavor_id: name,
  flavor_name: name,
  vcpus,
  ram: ramGb * 1024,
  architecture,
  os_type: 'linux',
  disabled: false,
  hardware_description: { ram: `${ramGb} GiB`, vcpus: `${vcpus} vCPU` },
});

export const FLAVORS: Flavor[] = [
  make('g1-standard-1-2', 1, 2),
  make('g1-standard-2-4', 2, 4),
  make('g1-standard-2-8', 2, 8),
  make('g1-standard-4-8', 4, 8),
  make('g1-standard-8-16', 8, 16),
  make('g1-standard-16-32', 16, 32),
  make('g1-cpu-32-64', 32, 64),
  // Arm virtual machines: they boot aarch64 images only.
  make('a1-standard-2-4', 2, 4, 'aarch64'),
  make('a1-standard-4-8', 4, 8, 'aarch64'),
];

export function flavorById(id: string): Flavor | undefined {
  return FLAVORS.find((f) => f.flavor_id === id);
}
