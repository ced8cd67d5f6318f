// IPv4 CIDR arithmetic for subnets and port addresses (pure functions).

export interface Cidr {
  base: number;
  prefix: number;
}

export function parseCidr(text: string): Cidr | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(text);
  if (!match) return null;
  const octets = match.slice(1, 5).map(Number);
  const prefix = Number(match[5]);
  if (octets.some((o) => o > 255) || prefix > 30 || prefix < 8) return null;
  const address = octets.reduce((acc, o) => acc * 256 + o, 0);
  const size = 2 ** (32 - prefix);
  if (address % size !== 0) return null;
  return { base: address, prefix };
}

export function overlaps(a: Cidr, b: Cidr): boolean {
  const aEnd = a.base + 2 ** (32 - a.prefix);
  const bEnd = b.base + 2 ** (32 - b.prefix);
  return a.base < bEnd && b.base < aEnd;
}

/** Usable host addresses: all but network, broadcast and gateway. */
export function hostCount(c: Cidr): number {
  return 2 ** (32 - c.prefix) - 3;
}

export function ipAt(c: Cidr, offset: number): string {
  const n = c.base + offset;
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

/** The first host address of the subnet none of `taken` holds (the gateway takes the first one). */
export function freeAddress(cidr: Cidr, taken: Set<string>): string | undefined {
  const hosts = 2 ** (32 - cidr.prefix) - 2;
  for (let offset = 2; offset <= hosts; offset += 1) {
    const candidate = ipAt(cidr, offset);
    if (!taken.has(candidate)) return candidate;
  }
  return undefined;
}

/** Whether `address` is an IPv4 host address of the subnet other than its gateway (network + 1). */
export function isHostAddress(cidr: Cidr, address: string): boolean {
  const n = ipv4Number(address);
  return n !== null && n > cidr.base + 1 && n < cidr.base + 2 ** (32 - cidr.prefix) - 1;
}

/** Whether `address` lies in the subnet at all (network and broadcast included). */
export function containsAddress(cidr: Cidr, address: string): boolean {
  const n = ipv4Number(address);
  return n !== null && n >= cidr.base && n < cidr.base + 2 ** (32 - cidr.prefix);
}

function ipv4Number(address: string): number | null {
  const parts = address.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return null;
  return parts.reduce((acc, o) => acc * 256 + Number(o), 0);
}
