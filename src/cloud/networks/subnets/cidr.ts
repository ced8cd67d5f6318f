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
