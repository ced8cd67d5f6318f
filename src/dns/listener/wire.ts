// Answers in the DNS wire format, through dns-packet. The API's content parts become each type's RDATA;
// SVCB and HTTPS, which dns-packet does not know, are encoded here (RFC 9460) and sent as raw RDATA.
import packet from 'dns-packet';
import { chunks, integerPart, svcKeyNumber } from '../rrsets/content.js';
import type { Rr } from '../resolver/resolve.js';

type Answer = packet.Answer;

/** dns-packet's address encoders: two length bytes, then the address. */
const addressCodec = packet as unknown as { a: { encode(ip: string): Buffer }; aaaa: { encode(ip: string): Buffer } };
const ipv4Bytes = (ip: string) => addressCodec.a.encode(ip).subarray(2);
const ipv6Bytes = (ip: string) => addressCodec.aaaa.encode(ip).subarray(2);

/** Query types dns-packet names UNKNOWN_n that the API names. */
const TYPE_NUMBERS: Record<string, number> = { SVCB: 64, HTTPS: 65 };
const NAMED_UNKNOWN: Record<string, string> = { UNKNOWN_64: 'SVCB', UNKNOWN_65: 'HTTPS' };

/** The API's name for a query type as dns-packet decoded it. */
export function queryType(decoded: string): string {
  return NAMED_UNKNOWN[decoded] ?? decoded;
}

function u16(value: number): Buffer {
  const buf = Buffer.alloc(2);
  buf.writeUInt16BE(value);
  return buf;
}

function nameBytes(name: string): Buffer {
  const bare = name.replace(/\.$/, '');
  const labels = bare === '' ? [] : bare.split('.');
  return Buffer.concat([...labels.flatMap((label) => [Buffer.from([Buffer.byteLength(label)]), Buffer.from(label)]), Buffer.from([0])]);
}

function svcValue(key: string, values: unknown[]): Buffer {
  switch (key) {
    case 'mandatory':
      return Buffer.concat(
        values
          .map((v) => svcKeyNumber(String(v))!)
          .sort((a, b) => a - b)
          .map(u16),
      );
    case 'alpn':
      return Buffer.concat(values.flatMap((v) => [Buffer.from([Buffer.byteLength(String(v))]), Buffer.from(String(v))]));
    case 'no-default-alpn':
      return Buffer.alloc(0);
    case 'port':
      return u16(integerPart(values[0], 65535)!);
    case 'ipv4hint':
      return Buffer.concat(values.map((v) => ipv4Bytes(String(v))));
    case 'ipv6hint':
      return Buffer.concat(values.map((v) => ipv6Bytes(String(v))));
    case 'ech':
      return Buffer.from(String(values[0]), 'base64');
    default:
      return Buffer.from(String(values[0] ?? ''));
  }
}

/** SVCB/HTTPS RDATA: priority, target, then the parameters in key order. */
export function svcbRdata(parts: unknown[]): Buffer {
  const params = (parts.slice(2) as unknown[][])
    .map(([key, ...values]) => ({ number: svcKeyNumber(String(key))!, value: svcValue(String(key), values) }))
    .sort((a, b) => a.number - b.number);
  return Buffer.concat([
    u16(integerPart(parts[0], 65535)!),
    nameBytes(String(parts[1])),
    ...params.flatMap((p) => [u16(p.number), u16(p.value.length), p.value]),
  ]);
}

function data(rr: Rr): unknown {
  if (rr.type === 'SOA') return rr.soa;
  if (rr.type === 'DNSKEY') return { flags: rr.key.flags, algorithm: rr.key.algorithm, key: rr.key.publicKey };
  const p = rr.parts;
  switch (rr.type) {
    case 'MX':
      return { preference: integerPart(p[0], 65535), exchange: String(p[1]) };
    case 'SRV':
      return { priority: integerPart(p[0], 65535), weight: integerPart(p[1], 65535), port: integerPart(p[2], 65535), target: String(p[3]) };
    case 'TXT':
      return p.flatMap((part) => chunks(String(part)));
    case 'CAA':
      return { flags: integerPart(p[0], 255), tag: String(p[1]), value: String(p[2]) };
    case 'DS':
      return {
        keyTag: integerPart(p[0], 65535),
        algorithm: integerPart(p[1], 255),
        digestType: integerPart(p[2], 255),
        digest: Buffer.from(String(p[3]), 'hex'),
      };
    case 'SVCB':
    case 'HTTPS':
      return svcbRdata(p);
    default:
      return String(p[0]);
  }
}

/** One answer entry; `owner` replaces the record's name (to echo the query's spelling). */
export function toAnswer(rr: Rr, owner = rr.name): Answer {
  const type = TYPE_NUMBERS[rr.type] ? `UNKNOWN_${TYPE_NUMBERS[rr.type]}` : rr.type;
  return { type, name: owner, ttl: rr.ttl, class: 'IN', data: data(rr) } as unknown as Answer;
}
