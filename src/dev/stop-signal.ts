// Waits for Ctrl-C (SIGINT) or SIGTERM, then runs `stop` once and exits 0 (1 if stopping failed). A
// signal repeated while stopping exits at once with 130, unless it came within a second of the first:
// Ctrl-C under `npm run` can reach the process twice (the terminal's and npm's forwarded one).
const REPEAT_WINDOW_MS = 1_000;

export function stopOnSignal(stop: () => Promise<void>, log: (line: string) => void = console.log): void {
  let firstAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstAt !== undefined) {
      if (Date.now() - firstAt >= REPEAT_WINDOW_MS) process.exit(130);
      return;
    }
    firstAt = Date.now();
    log(`${signal}: stopping everything...`);
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`stopping failed: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
