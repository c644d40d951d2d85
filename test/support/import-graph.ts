// The import graph of the package's sources, read with TypeScript's own parser: which module each module
// imports at run time (type-only imports are erased by the compiler and do not count), and, for the rules
// about which side may know which (`allImportsOf`) and for import cycles, every module it names, types
// included.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface ModuleImports {
  /** Project modules imported at run time, as paths relative to the root. */
  local: string[];
  /** Package specifiers imported at run time (`zod`, `@temporalio/workflow`, `node:fs`). */
  packages: string[];
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (!clause) return false; // a side-effect import runs
    if (clause.isTypeOnly) return true;
    if (clause.name) return false;
    const bindings = clause.namedBindings;
    return (
      !!bindings &&
      ts.isNamedImports(bindings) &&
      bindings.elements.length > 0 &&
      bindings.elements.every((e) => e.isTypeOnly)
    );
  }
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return (
    !!clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly)
  );
}

function resolveLocal(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    base,
    join(base, 'index.ts'),
  ]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  throw new Error(`${from}: cannot resolve ${specifier}`);
}

/** Run-time imports of one source file; with `types`, type-only imports and `import('x')` types as well. */
export function importsOf(file: string, { types = false }: { types?: boolean } = {}): ModuleImports {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const local: string[] = [];
  const packages: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      (types || !isTypeOnly(node))
    ) {
      const spec = node.moduleSpecifier.text;
      if (spec.startsWith('.')) local.push(resolveLocal(file, spec));
      else packages.push(spec);
    }
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      const spec = node.arguments[0].text;
      if (spec.startsWith('.')) local.push(resolveLocal(file, spec));
      else packages.push(spec);
    }
    if (
      types &&
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      const spec = node.argument.literal.text;
      if (spec.startsWith('.')) local.push(resolveLocal(file, spec));
      else packages.push(spec);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { local, packages };
}

/**
 * The project modules each file under `dir` names in an import or export, type-only ones included (paths
 * relative to `root`): who may know of whom, which a type import breaks as much as a run-time one.
 */
export function allImportsOf(dir: string, root: string): Array<{ file: string; imports: string[] }> {
  return sourceFiles(dir).map((f) => ({
    file: relative(root, f),
    imports: importsOf(f, { types: true }).local.map((l) => relative(root, l)),
  }));
}

/** Every module reachable at run time from `entry`, with its imports (paths relative to `root`). */
export function reachableFrom(entry: string, root: string): Map<string, ModuleImports> {
  const out = new Map<string, ModuleImports>();
  const pending = [resolve(entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    const key = relative(root, file);
    if (out.has(key)) continue;
    const { local, packages } = importsOf(file);
    out.set(key, { local: local.map((f) => relative(root, f)), packages });
    pending.push(...local);
  }
  return out;
}

/** Every .ts file under `dir`. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/**
 * Import cycles among the given files (each as the list of modules around it), type imports included: a
 * circle of types is as much a knot in who knows whom as one of values, though the compiler erases it.
 */
export function cyclesAmong(files: string[], root: string): string[][] {
  const graph = new Map(
    files.map((f) => [relative(root, f), importsOf(f, { types: true }).local.map((l) => relative(root, l))]),
  );
  const cycles: string[][] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'visiting');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'visiting') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}
