// The search attributes a registration script creates (`create <Name> <CliType>` lines, as docker-compose.yml's
// temporal-setup and the Helm chart's Job write them), in the SDK's terms, to compare with the contract's list.
import { allSearchAttributes } from '../../src/contract/index.js';

/** CLI type names -> the SDK's SearchAttributeType values. */
const CLI_TYPE: Record<string, string> = {
  Keyword: 'KEYWORD',
  KeywordList: 'KEYWORD_LIST',
  Text: 'TEXT',
  Int: 'INT',
  Double: 'DOUBLE',
  Bool: 'BOOL',
  Datetime: 'DATETIME',
};

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

/** What the script registers, sorted by name. */
export function registeredSearchAttributes(script: string): Array<{ name: string; type: string }> {
  return [...script.matchAll(/^\s*create\s+(\S+)\s+(\S+)\s*$/gm)]
    .map((m) => ({ name: m[1]!, type: CLI_TYPE[m[2]!] ?? m[2]! }))
    .sort(byName);
}

/** The contract's search attributes, in the same form. */
export function contractSearchAttributes(): Array<{ name: string; type: string }> {
  return allSearchAttributes.map((k) => ({ name: k.name, type: String(k.type) })).sort(byName);
}
