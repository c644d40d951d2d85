// Keep test output readable: the SDK's per-worker INFO lines drown the assertions.
import { DefaultLogger, Runtime } from '@temporalio/worker';

try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Already installed in this process (vitest may reuse a fork between files).
}
