// How often the event loop turned while some work ran: work that yields between slices lets other
// requests run (more than one turn); work that holds the thread throughout gives at most one.
export async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const count = () => {
    turns += 1;
    if (running) setImmediate(count);
  };
  setImmediate(count);
  try {
    const result = await work();
    return { result, turns };
  } finally {
    running = false;
  }
}
