// Pickers on their own: selectors in order until one matches, filters and mutators on what is left.
import { describe, expect, it } from 'vitest';
import { applyPickers, ipMatches, type PickedRecord } from './pickers.js';

const record = (ip: string, meta: Record<string, unknown> = {}): PickedRecord => ({ content: [ip], meta });
const ips = (records: PickedRecord[]) => records.map((r) => r.content[0]);

const office = record('192.0.2.1', { ip: ['10.0.0.0/8'] });
const fallback = record('192.0.2.2', { default: true });
const plain = record('192.0.2.3', { latlong: [52.5, 13.4] });
const all = [office, fallback, plain];

describe('pickers', () => {
  it('matches client addresses against ip meta, single addresses, CIDR blocks and IPv6', () => {
    expect(ipMatches({ ip: ['10.0.0.0/8'] }, '10.1.2.3')).toBe(true);
    expect(ipMatches({ ip: '192.0.2.7' }, '192.0.2.7')).toBe(true);
    expect(ipMatches({ ip: ['2001:db8::/32'] }, '2001:db8::5')).toBe(true);
    expect(ipMatches({ ip: ['10.0.0.0/8'] }, '11.0.0.1')).toBe(false);
    expect(ipMatches({ ip: ['not a network'] }, '10.0.0.1')).toBe(false);
    expect(ipMatches({}, '10.0.0.1')).toBe(false);
    expect(ipMatches({ ip: ['10.0.0.0/8'] }, undefined)).toBe(false);
  });

  it('uses the first selector that matches and skips the later ones', () => {
    expect(ips(applyPickers([{ type: 'ip' }, { type: 'default' }], all, { address: '10.9.9.9' }))).toEqual(['192.0.2.1']);
    expect(ips(applyPickers([{ type: 'ip' }, { type: 'default' }], all, { address: '203.0.113.1' }))).toEqual(['192.0.2.2']);
    // Nothing matches: every record stays.
    expect(ips(applyPickers([{ type: 'country' }, { type: 'asn' }], all, { address: '203.0.113.1' }))).toEqual(ips(all));
  });

  it('geodns: records for the client address, else all or (strict) none', () => {
    expect(ips(applyPickers([{ type: 'geodns' }], all, { address: '10.0.0.1' }))).toEqual(['192.0.2.1']);
    expect(ips(applyPickers([{ type: 'geodns', strict: false }], all, { address: '203.0.113.1' }))).toEqual(ips(all));
    expect(applyPickers([{ type: 'geodns', strict: true }], all, { address: '203.0.113.1' })).toEqual([]);
  });

  it('first_n keeps the first records; a limit of 0 keeps them all', () => {
    expect(ips(applyPickers([{ type: 'first_n', limit: 2 }], all, {}))).toEqual(['192.0.2.1', '192.0.2.2']);
    expect(applyPickers([{ type: 'first_n', limit: 0 }], all, {})).toHaveLength(3);
  });

  it('weighted_shuffle orders by weight (default 50)', () => {
    const heavy = record('a', { weight: 1000 });
    const light = record('b', { weight: 0 });
    const order = applyPickers([{ type: 'weighted_shuffle' }], [light, record('c'), heavy], {}, () => 0.5);
    expect(ips(order)[0]).toBe('a');
    expect(ips(order).at(-1)).toBe('b');
  });

  it('geodistance puts records without latlong last', () => {
    expect(ips(applyPickers([{ type: 'geodistance' }, { type: 'first_n', limit: 1 }], all, {}))).toEqual(['192.0.2.3']);
  });
});
