// Links in Markdown, as GitHub renders them: the prose lines (outside fenced code blocks), and the inline
// links, images, reference definitions and HTML href/src in them. Shared by the repository's link check
// (test/docs-links.test.ts) and the packed package's (test/package/pack-install.test.ts).

interface Line {
  n: number;
  text: string;
}

/** The lines outside fenced code blocks, with their numbers. */
export function proseLines(markdown: string): Line[] {
  const lines: Line[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, i) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return;
    }
    if (marker) {
      fence = marker;
      return;
    }
    lines.push({ n: i + 1, text });
  });
  return lines;
}

/** Inline code spans blanked out (same length), so that a link written as code is not a link. */
const withoutCode = (text: string) => text.replace(/(`+)(.+?)\1/g, (m) => ' '.repeat(m.length));

export interface Link {
  file: string;
  line: number;
  target: string;
}

/** `[text](target "title")` and `![alt](target)`: the target, bare or in angle brackets. */
const INLINE_LINK = /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;

/** Inline links and images, reference definitions and HTML href/src, outside code. */
export function linksOf(file: string, markdown: string): Link[] {
  const links: Link[] = [];
  for (const { n, text } of proseLines(markdown)) {
    const prose = withoutCode(text);
    const targets = [
      ...[...prose.matchAll(INLINE_LINK)].map((m) => m[1]!),
      ...[...prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s*(\S+)/g)].map((m) => m[1]!),
      ...[...prose.matchAll(/\s(?:href|src)="([^"]+)"/g)].map((m) => m[1]!),
    ];
    for (const raw of targets) links.push({ file, line: n, target: raw.replace(/^<|>$/g, '') });
  }
  return links;
}

export const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
