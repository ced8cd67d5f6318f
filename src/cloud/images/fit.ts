// Whether an image can boot what a request asks for (pure functions): the image must be usable, and
// the flavor and disk must be big enough and of the image's architecture.
import type { Flavor } from '../instances/flavors.js';

/** What the rules need to know of an image, public or private. */
export interface BootImage {
  id: string;
  name: string;
  status: string;
  kind: 'vm' | 'gpu' | 'baremetal';
  architecture: string;
  os_type: string;
  min_disk: number;
  min_ram: number;
  ssh_key: 'allow' | 'deny' | 'required';
}

/** Why the image cannot be the source of a volume of `sizeGb` GiB, or null when it can. */
export function volumeMisfit(image: BootImage, sizeGb: number): string | null {
  if (image.status !== 'active') return `image ${image.id} is not active yet (status ${image.status})`;
  if (image.kind === 'baremetal') return `image ${image.id} (${image.name}) is a bare-metal image; volumes cannot be made from it`;
  if (sizeGb < image.min_disk) return `image ${image.id} (${image.name}) needs a volume of at least ${image.min_disk} GiB, got ${sizeGb}`;
  return null;
}

/** Why the image cannot boot a virtual machine of `flavor` from a volume of `sizeGb` GiB, or null when it can. */
export function instanceMisfit(image: BootImage, flavor: Flavor, sizeGb: number): string | null {
  if (image.kind === 'gpu') return `image ${image.id} (${image.name}) is a GPU image; it boots GPU servers, not virtual machines of flavor ${flavor.flavor_id}`;
  const volume = volumeMisfit(image, sizeGb);
  if (volume) return volume;
  if (image.architecture !== flavor.architecture)
    return `image ${image.id} (${image.name}) is built for ${image.architecture}; flavor ${flavor.flavor_id} is ${flavor.architecture}`;
  if (flavor.ram < image.min_ram)
    return `image ${image.id} (${image.name}) needs at least ${image.min_ram} MiB of RAM; flavor ${flavor.flavor_id} has ${flavor.ram}`;
  return null;
}

/** Why the image refuses (or needs) an SSH key, or null when the choice fits it. */
export function keyMisfit(image: BootImage, sshKeyName: string | null | undefined): string | null {
  if (image.ssh_key === 'deny' && sshKeyName) return `image ${image.id} (${image.name}) does not take SSH keys; set a password instead`;
  if (image.ssh_key === 'required' && !sshKeyName) return `image ${image.id} (${image.name}) requires an SSH key (ssh_key_name)`;
  return null;
}
