// Metrics from workflow code go through the SDK's workflow metric meter, which only works inside a
// workflow context, while our workflow modules are evaluated once per worker thread (preloaded): so each
// module's meters are made on first use, once, and shared by every run (they hold no state of a run).
export function onFirstUse<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}
