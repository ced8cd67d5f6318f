// The pieces' parse gives what JSON.parse gives, value and key order, and refuses what it refuses: checked
// on generated documents cut into pieces of a few characters (so every container is split at its
// members, runs and long members alike), and on every one-character mutation of some of them.
import { describe, expect, it } from 'vitest';
import { TimeSlicer } from './cooperative.js';
import { ForbiddenKey, parseJsonInPieces } from './json-pieces.js';

let seed = 20261129;
const random = (n: number) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
};
const space = () => [' ', '', '\n', '\t ', '\r\n'][random(5)];
const STRINGS = ['', 'a', 'x y', 'quote " in', 'back \\ slash', 'brackets [{]}', 'comma, colon:', 'é ✓ \u0001', '\\"', 'key'];
const KEYS = ['a', 'b', 'a', 'long key', 'k"q', 'constructor', '', 'b\\c'];

/** A JSON text with random whitespace between its tokens. */
function document(depth: number): string {
  const kind = depth > 4 ? random(4) : random(7);
  if (kind === 0) return String([0, -1, 1.5, -0, 1e21, 2.5e-7, 123456789][random(7)]);
  if (kind === 1) return ['true', 'false', 'null'][random(3)];
  if (kind <= 3) return JSON.stringify(STRINGS[random(STRINGS.length)]);
  const n = random(6);
  const members = Array.from({ length: n }, () =>
    kind === 4
      ? `${space()}${document(depth + 1)}${space()}`
      : `${space()}${JSON.stringify(KEYS[random(KEYS.length)])}${space()}:${space()}${document(depth + 1)}${space()}`,
  );
  return kind === 4 ? `[${members.join(',')}${n === 0 ? space() : ''}]` : `{${members.join(',')}${n === 0 ? space() : ''}}`;
}

/** What JSON.parse makes of `text`, as text (key order included), or that it refuses it. */
function expected(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return 'refused';
  }
}

async function got(text: string, piece: number): Promise<string> {
  try {
    return JSON.stringify(await parseJsonInPieces(text, new TimeSlicer(), piece));
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return 'refused';
  }
}

describe('JSON parsed in pieces', () => {
  it('gives what JSON.parse gives on generated documents, whatever the piece size', async () => {
    for (let i = 0; i < 400; i += 1) {
      const text = `${space()}${document(0)}${space()}`;
      for (const piece of [1, 4, 16, 64, 100_000]) expect(await got(text, piece), `${text} in pieces of ${piece}`).toBe(expected(text));
    }
  });

  it('refuses what JSON.parse refuses, and accepts what it accepts, after any one-character change', async () => {
    const alphabet = ['', ',', ':', '"', '\\', '[', ']', '{', '}', ' ', 'x', '1', '-', 'e'];
    let refused = 0;
    for (let i = 0; i < 40; i += 1) {
      const text = document(1);
      for (let at = 0; at <= text.length; at += 1) {
        const changed = text.slice(0, at) + alphabet[random(alphabet.length)] + text.slice(at + random(2));
        const want = expected(changed);
        if (want === 'refused') refused += 1;
        for (const piece of [1, 8]) expect(await got(changed, piece), `${changed} in pieces of ${piece}`).toBe(want);
      }
    }
    expect(refused).toBeGreaterThan(100);
  });

  it('keeps the first place and the last value of a repeated key, as JSON.parse does', async () => {
    const text = '{"a":1,"b":[1,2,3],"a":{"c":3},"d":null,"b":4}';
    expect(JSON.stringify(await parseJsonInPieces(text, new TimeSlicer(), 4))).toBe(JSON.stringify(JSON.parse(text)));
  });

  it('refuses a __proto__ key where it assembles an object, instead of setting a prototype', async () => {
    const text = `{"x":${JSON.stringify('p'.repeat(40))},"__proto__":{"admin":true}}`;
    await expect(parseJsonInPieces(text, new TimeSlicer(), 8)).rejects.toBeInstanceOf(ForbiddenKey);
  });

  it('parses a 1 MB body of small objects in runs, yielding between them', async () => {
    const text = JSON.stringify({ name: 'big', padding: Array.from({ length: 130_000 }, (_, i) => ({ k: i % 10 })) });
    let turns = 0;
    const ticking = setInterval(() => (turns += 1), 0);
    const value = (await parseJsonInPieces(text, new TimeSlicer(0, 1))) as { padding: unknown[] };
    clearInterval(ticking);
    expect(value.padding).toHaveLength(130_000);
    expect(JSON.stringify(value)).toBe(text);
    expect(turns).toBeGreaterThan(3);
  });
});
