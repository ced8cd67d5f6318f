// The provider's public images: a fixed catalogue (they are the provider's, not a client's), offered in
// every region with virtual machines, plus GPU images where the region has GPUs and bare-metal images
// where it has bare metal. Each image has the same ID in every region that offers it, derived from its
// slug, so fixtures can name one without a lookup (docs/cloud.md, "Images").
import { createHash } from 'node:crypto';
import type { RegionDefinition } from '../regions/catalogue.js';

export interface PublicImage {
  id: string;
  slug: string;
  name: string;
  os_distro: string;
  os_version: string;
  os_type: 'linux' | 'windows';
  architecture: 'x86_64' | 'aarch64';
  /** Smallest boot volume, GiB. */
  min_disk: number;
  /** Smallest RAM of the flavor, MiB. */
  min_ram: number;
  hw_firmware_type: 'bios' | 'uefi';
  hw_machine_type: 'i440' | 'q35';
  is_baremetal: boolean;
  gpu_driver: string | null;
  gpu_driver_type: string | null;
  gpu_driver_version: string | null;
  ssh_key: 'allow' | 'deny' | 'required';
  /** Bytes. */
  size: number;
  display_order: number;
  kind: 'vm' | 'gpu' | 'baremetal';
}

/** A stable UUID (version 4 layout) for a slug. */
export function stableUuid(namespace: string, slug: string): string {
  const h = createHash('sha1').update(`${namespace}:${slug}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const GIB = 1024 ** 3;

type Spec = Omit<
  PublicImage,
  'id' | 'gpu_driver' | 'gpu_driver_type' | 'gpu_driver_version' | 'is_baremetal' | 'hw_machine_type' | 'ssh_key' | 'display_order'
> &
  Partial<Pick<PublicImage, 'gpu_driver' | 'gpu_driver_type' | 'gpu_driver_version' | 'hw_machine_type' | 'ssh_key'>>;

const SPECS: Spec[] = [
  {
    slug: 'ubuntu-22.04-x64',
    name: 'ubuntu-22.04-x64',
    os_distro: 'ubuntu',
    os_version: '22.04',
    os_type: 'linux',
    architecture: 'x86_64',
    min_disk: 5,
    min_ram: 512,
    hw_firmware_type: 'bios',
    size: 2 * GIB,
    kind: 'vm',
  },
  {
    slug: 'ubuntu-24.04-x64',
    name: 'ubuntu-24.04-x64',
    os_distro: 'ubuntu',
    os_version: '24.04',
    os_type: 'linux',
    architecture: 'x86_64',
    min_disk: 5,
    min_ram: 512,
    hw_firmware_type: 'uefi',
    hw_machine_type: 'q35',
    size: 2 * GIB,
    kind: 'vm',
  },
  {
    slug: 'ubuntu-24.04-arm64',
    name: 'ubuntu-24.04-arm64',
    os_distro: 'ubuntu',
    os_version: '24.04',
    os_type: 'linux',
    architecture: 'aarch64',
    min_disk: 5,
    min_ram: 1024,
    hw_firmware_type: 'uefi',
    hw_machine_type: 'q35',
    size: 2 * GIB,
    kind: 'vm',
  },
  {
    slug: 'debian-12-x64',
    name: 'debian-12-x64',
    os_distro: 'debian',
    os_version: '12',
    os_type: 'linux',
    architecture: 'x86_64',
    min_disk: 3,
    min_ram: 512,
    hw_firmware_type: 'bios',
    size: 1 * GIB,
    kind: 'vm',
  },
  {
    slug: 'rocky-9-x64',
    name: 'rocky-9-x64',
    os_distro: 'rocky',
    os_version: '9',
    os_type: 'linux',
    architecture: 'x86_64',
    min_disk: 10,
    min_ram: 1024,
    hw_firmware_type: 'uefi',
    hw_machine_type: 'q35',
    size: 2 * GIB,
    kind: 'vm',
  },
  {
    slug: 'almalinux-9-x64',
    name: 'almalinux-9-x64',
    os_distro: 'almalinux',
    os_version: '9',
    os_type: 'linux',
    architecture: 'x86_64',
    min_disk: 10,
    min_ram: 1024,
    hw_firmware_type: 'bios',
    size: 2 * GIB,
    kind: 'vm',
  },
  {
    slug: 'windows-server-2022',
    name: 'windows-server-2022',
    os_distro: 'windows',
    os_version: '2022',
    os_type: 'windows',
    architecture: 'x86_64',
    min_disk: 50,
    min_ram: 4096,
    hw_firmware_type: 'uefi',
    hw_machine_type: 'q35',
    ssh_key: 'deny',
    size: 12 * GIB,
    kind: 'vm',
  },
  {
    slug: 'ubuntu-22.04-x64-nvidia',
    name: 'ubuntu-22.04-x64-nvidia-550',
    os_distro: 'ubuntu',
    os_version: '22.04',
    os_type: 'linux',
    architecture: 'x86_64',
    min_disk: 40,
    min_ram: 8192,
    hw_firmware_type: 'uefi',
    hw_machine_type: 'q35',
    gpu_driver: 'nvidia',
    gpu_driver_type: 'cuda',
    gpu_driver_version: '550.127',
    size: 8 * GIB,
    kind: 'gpu',
  },
  {
    slug: 'ubuntu-22.04-x64-baremetal',
    name: 'ubuntu-22.04-x64-baremetal',
    os_distro: 'ubuntu',
    os_version: '22.04',
    os_type: 'linux',
    architecture: 'x86_64',
    min_disk: 0,
    min_ram: 0,
    hw_firmware_type: 'uefi',
    size: 3 * GIB,
    kind: 'baremetal',
  },
  {
    slug: 'debian-12-x64-baremetal',
    name: 'debian-12-x64-baremetal',
    os_distro: 'debian',
    os_version: '12',
    os_type: 'linux',
    architecture: 'x86_64',
    min_disk: 0,
    min_ram: 0,
    hw_firmware_type: 'uefi',
    size: 2 * GIB,
    kind: 'baremetal',
  },
];

export const PUBLIC_IMAGE_NAMESPACE = 'edgeplane-public-image';

export const PUBLIC_IMAGES: readonly PublicImage[] = SPECS.map((spec, i) => ({
  gpu_driver: null,
  gpu_driver_type: null,
  gpu_driver_version: null,
  hw_machine_type: 'i440',
  ssh_key: 'allow',
  ...spec,
  id: stableUuid(PUBLIC_IMAGE_NAMESPACE, spec.slug),
  is_baremetal: spec.kind === 'baremetal',
  display_order: i + 1,
}));

/** The image fixtures use: Ubuntu 22.04 for x86_64 virtual machines, offered in every region with VMs. */
export const DEFAULT_PUBLIC_IMAGE = PUBLIC_IMAGES[0];

/** Whether the region offers the image: VM images where VMs run, GPU and bare-metal ones where those exist. */
export function offeredIn(image: PublicImage, region: RegionDefinition): boolean {
  if (image.kind === 'baremetal') return region.has_baremetal;
  if (image.kind === 'gpu') return region.has_kvm && region.has_ai;
  return region.has_kvm;
}
