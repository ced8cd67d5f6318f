// Choosing a host under each placement policy.
import { describe, expect, it } from 'vitest';
import { chooseHost, HOST_VCPUS } from './hosts.js';

const hosts = ['h1', 'h2', 'h3'];
const load = (entries: [string, number][]) => new Map(entries);

describe('chooseHost', () => {
  it('takes the least loaded host with room when there is no group', () => {
    expect(
      chooseHost({
        hosts,
        load: load([
          ['h1', 10],
          ['h2', 2],
        ]),
        need: 4,
        group: null,
      }),
    ).toBe('h3');
    expect(
      chooseHost({
        hosts,
        load: load([
          ['h1', 10],
          ['h2', 2],
          ['h3', HOST_VCPUS - 1],
        ]),
        need: 4,
        group: null,
      }),
    ).toBe('h2');
    expect(chooseHost({ hosts, load: load(hosts.map((h) => [h, HOST_VCPUS])), need: 1, group: null })).toBeNull();
  });

  it("keeps an affinity group on its members' host, and fails when that host is full", () => {
    expect(chooseHost({ hosts, load: load([['h2', 30]]), need: 4, group: { policy: 'affinity', memberHosts: new Set(['h2']) } })).toBe('h2');
    expect(chooseHost({ hosts, load: load([['h2', HOST_VCPUS - 2]]), need: 4, group: { policy: 'affinity', memberHosts: new Set(['h2']) } })).toBeNull();
    expect(chooseHost({ hosts, load: load([]), need: 4, group: { policy: 'affinity', memberHosts: new Set() } })).toBe('h1');
  });

  it('spreads an anti-affinity group, failing once every host has a member; soft anti-affinity does not fail', () => {
    expect(chooseHost({ hosts, load: load([['h1', 1]]), need: 1, group: { policy: 'anti-affinity', memberHosts: new Set(['h2']) } })).toBe('h3');
    expect(chooseHost({ hosts, load: load([]), need: 1, group: { policy: 'anti-affinity', memberHosts: new Set(hosts) } })).toBeNull();
    expect(
      chooseHost({
        hosts,
        load: load([
          ['h1', 9],
          ['h3', 1],
        ]),
        need: 1,
        group: { policy: 'soft-anti-affinity', memberHosts: new Set(hosts) },
      }),
    ).toBe('h2');
  });
});
