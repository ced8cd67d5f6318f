// One DNS message in, one out: decoding, the checks an authoritative server makes (a single question,
// class IN, a standard query), the resolution, counting for statistics, and the size limit of UDP
// (a larger answer is sent empty with TC set, and the client asks again over TCP; over TCP, 64 KiB).
import packet from 'dns-packet';
import type { Resolver } from '../resolver/resolve.js';
import type { QueryRecorder } from '../statistics/recorder.js';
import { queryType, toAnswer } from './wire.js';

const RCODES = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
type Rcode = keyof typeof RCODES;

const AA = 1 << 10;
const TC = 1 << 9;
const RD = 1 << 8;
/** The UDP payload size this server advertises and honours at most (the DNS flag day 2020 value). */
export const EDNS_UDP_SIZE = 1232;
const CLASSIC_UDP_SIZE = 512;
const TCP_MESSAGE_SIZE = 65_535;
const ZONE_TRANSFERS = new Set(['AXFR', 'IXFR']);
const META_TYPES = new Set(['OPT', 'TSIG', 'TKEY']);

type Decoded = packet.Packet & { opcode?: string; flag_rd?: boolean };
type OptRecord = { type: 'OPT'; udpPayloadSize?: number; options?: { code: number; ip?: string }[] };

export interface Transport {
  kind: 'udp' | 'tcp';
  /** The address the query came from. */
  address: string;
}

function header(query: Decoded, rcode: Rcode, flags = 0): number {
  const opcode = (((query.flags ?? 0) >> 11) & 0xf) << 11;
  return opcode | (query.flag_rd ? RD : 0) | flags | RCODES[rcode];
}

function optOf(query: Decoded): OptRecord | undefined {
  return (query.additionals ?? []).find((a) => a.type === 'OPT') as OptRecord | undefined;
}

function optAnswer(): packet.Answer {
  return { type: 'OPT', name: '.', udpPayloadSize: EDNS_UDP_SIZE, extendedRcode: 0, ednsVersion: 0, flags: 0, options: [] } as unknown as packet.Answer;
}

/** The answer to a message too broken to decode: FORMERR with the query's id, when there is one. */
function formatError(message: Buffer): Buffer | undefined {
  if (message.length < 12) return undefined;
  const id = message.readUInt16BE(0);
  if (message.readUInt16BE(2) & 0x8000) return undefined;
  return packet.encode({ id, type: 'response', flags: RCODES.FORMERR, questions: [] } as packet.Packet);
}

export class DnsHandler {
  constructor(
    private readonly resolver: Resolver,
    private readonly recorder: QueryRecorder,
    private readonly onError: (error: unknown) => void,
  ) {}

  async handle(message: Buffer, transport: Transport): Promise<Buffer | undefined> {
    let query: Decoded;
    try {
      query = packet.decode(message) as Decoded;
    } catch {
      return formatError(message);
    }
    if (query.type === 'response') return undefined;
    let response: packet.Packet;
    try {
      response = await this.respond(query, transport);
    } catch (error) {
      this.onError(error);
      response = { id: query.id, type: 'response', flags: header(query, 'SERVFAIL'), questions: query.questions ?? [] };
    }
    return this.encode(query, response, transport);
  }

  private async respond(query: Decoded, transport: Transport): Promise<packet.Packet> {
    const base = { id: query.id, type: 'response' as const, questions: query.questions ?? [] };
    const refuse = (rcode: Rcode): packet.Packet => ({ ...base, flags: header(query, rcode) });
    if (query.opcode !== 'QUERY') return refuse('NOTIMP');
    if (base.questions.length !== 1) return refuse('FORMERR');
    const question = base.questions[0];
    const type = queryType(question.type);
    if ((question.class ?? 'IN') !== 'IN' && question.class !== 'ANY') return refuse('REFUSED');
    if (META_TYPES.has(type)) return refuse('FORMERR');
    if (ZONE_TRANSFERS.has(type)) return refuse('REFUSED');
    const subnet = optOf(query)?.options?.find((o) => o.code === 8)?.ip;
    const resolution = await this.resolver.resolve(question.name, type, { address: subnet || transport.address });
    if (resolution.zone && resolution.rcode !== 'REFUSED') this.recorder.record(resolution.zone.id, resolution.zone.client_id, type);
    const asked = question.name.toLowerCase().replace(/\.$/, '');
    const owner = (name: string) => (name === asked ? question.name : name);
    return {
      ...base,
      flags: header(query, resolution.rcode, resolution.authoritative ? AA : 0),
      answers: resolution.answers.map((rr) => toAnswer(rr, owner(rr.name))),
      authorities: resolution.authorities.map((rr) => toAnswer(rr)),
      additionals: resolution.additionals.map((rr) => toAnswer(rr)),
    };
  }

  /** Encodes the response, with an OPT record when the query had one; over UDP, within the client's size. */
  private encode(query: Decoded, response: packet.Packet, transport: Transport): Buffer {
    const opt = optOf(query);
    if (opt) response.additionals = [...(response.additionals ?? []), optAnswer()];
    let bytes: Buffer;
    try {
      bytes = packet.encode(response);
    } catch (error) {
      this.onError(error);
      bytes = packet.encode({
        id: query.id,
        type: 'response',
        flags: header(query, 'SERVFAIL'),
        questions: response.questions,
        additionals: opt ? [optAnswer()] : [],
      } as packet.Packet);
    }
    const udpLimit = opt ? Math.min(Math.max(opt.udpPayloadSize ?? CLASSIC_UDP_SIZE, CLASSIC_UDP_SIZE), EDNS_UDP_SIZE) : CLASSIC_UDP_SIZE;
    // A TCP message is at most 65535 bytes (its two-byte length prefix).
    const limit = transport.kind === 'tcp' ? TCP_MESSAGE_SIZE : udpLimit;
    if (bytes.length <= limit) return bytes;
    return packet.encode({ ...response, flags: (response.flags ?? 0) | TC, answers: [], authorities: [], additionals: opt ? [optAnswer()] : [] });
  }
}
