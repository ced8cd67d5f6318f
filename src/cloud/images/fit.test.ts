import { describe, expect, it } from 'vitest';
import { flavorById } from '../instances/flavors.js';
import { PUBLIC_IMAGES, stableUuid } from './catalogue.js';
import { instanceMisfit, keyMisfit, volumeMisfit, type BootImage } from './fit.js';

const image = (slug: string): BootImage => {
  const i = PUBLIC_IMAGES.find((p) => p.slug === slug)!;
  return {
    id: i.id,
    name: i.name,
    status: 'active',
    kind: i.kind,
    architecture: i.architecture,
    os_type: i.os_type,
    min_disk: i.min_disk,
    min_ram: i.min_ram,
    ssh_key: i.ssh_key,
  };
};
const flavor = (id: string) => flavorById(id)!;

describe('whether an image fits', () => {
  it('boots a small Linux image on the smallest flavor and a disk of its minimum size', () => {
    expect(instanceMisfit(image('ubuntu-22.04-x64'), flavor('g1-standard-1-2'), 5)).toBeNull();
    expect(instanceMisfit(image('ubuntu-22.04-x64'), flavor('g1-standard-1-2'), 4)).toMatch(/at least 5 GiB, got 4/);
  });

  it('needs RAM, the architecture, a VM image and an active one', () => {
    expect(instanceMisfit(image('windows-server-2022'), flavor('g1-standard-1-2'), 50)).toMatch(/4096 MiB of RAM; flavor g1-standard-1-2 has 2048/);
    expect(instanceMisfit(image('windows-server-2022'), flavor('g1-standard-2-8'), 50)).toBeNull();
    expect(instanceMisfit(image('ubuntu-24.04-arm64'), flavor('g1-standard-2-4'), 10)).toMatch(/built for aarch64; flavor g1-standard-2-4 is x86_64/);
    expect(instanceMisfit(image('ubuntu-24.04-arm64'), flavor('a1-standard-2-4'), 10)).toBeNull();
    expect(instanceMisfit(image('ubuntu-22.04-x64-nvidia'), flavor('g1-standard-16-32'), 50)).toMatch(/GPU image/);
    expect(instanceMisfit(image('debian-12-x64-baremetal'), flavor('g1-standard-2-4'), 10)).toMatch(/bare-metal image/);
    expect(volumeMisfit({ ...image('debian-12-x64'), status: 'saving' }, 10)).toMatch(/not active yet \(status saving\)/);
  });

  it('takes an SSH key where the image does', () => {
    expect(keyMisfit(image('windows-server-2022'), 'my-key')).toMatch(/does not take SSH keys/);
    expect(keyMisfit(image('windows-server-2022'), null)).toBeNull();
    expect(keyMisfit({ ...image('debian-12-x64'), ssh_key: 'required' }, undefined)).toMatch(/requires an SSH key/);
  });
});

describe('public image IDs', () => {
  it('are stable version-4-shaped UUIDs, one per slug', () => {
    expect(stableUuid('ns', 'a')).toBe(stableUuid('ns', 'a'));
    expect(stableUuid('ns', 'a')).not.toBe(stableUuid('ns', 'b'));
    for (const i of PUBLIC_IMAGES) expect(i.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(PUBLIC_IMAGES.map((i) => i.id)).size).toBe(PUBLIC_IMAGES.length);
  });
});
