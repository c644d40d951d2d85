// Per test file of the server project: quiet SDK logs (the unit project loads no worker, so it skips this:
// loading @temporalio/worker costs about a second per file).
// Keep test output readable: the SDK logs every expected activity and workflow failure as a warning.
import { DefaultLogger, Runtime } from '@temporalio/worker';

try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // Already installed in this process (vitest may reuse a fork between files).
}
