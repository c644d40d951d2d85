// Keep test output readable: the SDK logs every expected activity and workflow failure as a warning.
import { DefaultLogger, Runtime } from '@temporalio/worker';

try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // Already installed in this process (vitest may reuse a fork between files).
}
