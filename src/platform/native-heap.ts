// The C heap: what Node, SQLite and the worker threads allocate outside V8's heap (buffers' contents,
// page caches, the threads' own allocations). glibc's malloc keeps freed memory for reuse rather than
// give it back: the main heap returns only its top, and only past a threshold that rises with every
// large block freed (up to 64 MiB); the arenas of threads that stopped keep their free pages. Once idle
// after the noisy-neighbour benchmark's worst requests, the server kept 262 MiB, of which the main C
// heap 61 MiB and the stopped threads' arenas 106 MiB; trimmed, 175 MiB (bench/README.md).
// `malloc_trim(0)` gives every arena's free pages back. Node has no binding for it, so it is called
// through koffi, a maintained FFI library shipped with prebuilt binaries, loaded only when the server is
// idle (it takes about 17 ms and 4 MiB).
import { createRequire } from 'node:module';

/** Gives the C heap's free pages back to the system. */
export interface NativeHeap {
  trim(): void;
}

type Koffi = typeof import('koffi');

const requireKoffi = (): Koffi => createRequire(import.meta.url)('koffi') as Koffi;

/**
 * glibc's `malloc_trim`, or undefined where there is none to call: not Linux, a C library other than
 * glibc (musl has no `libc.so.6`), or no koffi binary for this platform.
 */
export function glibcNativeHeap(load: () => Koffi = requireKoffi): NativeHeap | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const mallocTrim = load().load('libc.so.6').func('int malloc_trim(size_t pad)');
    return { trim: () => void mallocTrim(0) };
  } catch {
    return undefined;
  }
}
