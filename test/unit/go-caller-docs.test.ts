// docs/starting-jobs.md shows the Go caller in excerpts: each of its Go blocks is a verbatim part of
// examples/go/main.go or codec.go, the code test/go/caller.test.ts builds and runs, so the page cannot
// drift from it.
import { describe, expect, it } from 'vitest';
import { expectPackageDefaults, expectVerbatimExcerpts, readRepoFile } from './caller-docs.js';

describe('the Go caller in docs/starting-jobs.md', () => {
  it('shows only verbatim excerpts of examples/go/main.go and codec.go', () => {
    expectVerbatimExcerpts('go', ['examples/go/main.go', 'examples/go/codec.go'], 8);
  });

  it("falls back to the package's defaults: address, namespace and the workers' task queue", () => {
    expectPackageDefaults(
      'examples/go/main.go',
      (source, variable) => new RegExp(`getenv\\("${variable}", "([^"]*)"\\)`).exec(source)?.[1],
    );
  });

  it('names the Go SDK version go.mod requires, and go.sum holds its checksums', () => {
    const sdk = /^\s*go\.temporal\.io\/sdk (v\d+\.\d+\.\d+)$/m.exec(readRepoFile('examples/go/go.mod'))?.[1];
    expect(sdk).toBeDefined();
    expect(readRepoFile('docs/starting-jobs.md')).toContain(`\`go.temporal.io/sdk\` ${sdk}`);
    expect(readRepoFile('examples/go/go.sum')).toContain(`go.temporal.io/sdk ${sdk} h1:`);
  });
});
