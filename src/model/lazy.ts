// A value built on its first use, then kept. Every zod schema of a module that workflow code imports is
// built this way, for two reasons: the workflow sandbox evaluates such modules again for each workflow
// run (unless they are preloaded), so a schema built at import costs every run; and a preloaded module's
// exports are deep-frozen by the SDK, which zod schemas do not survive. A closure is neither evaluated per
// run nor frozen, so with `workflowPreloadModules` each schema is built once per worker thread.
import { z } from 'zod';

export function lazy<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}

// zod completes its global configuration (default locale, memoizer) when it builds its first container
// schema. Building one now, while this module is evaluated, completes it before a preloading worker
// freezes the sandbox's globals; otherwise the first schema built inside a workflow would write to them.
z.object({ ready: z.string() });
