/**
 * The code blocks a newcomer is told to run: fenced blocks of a Markdown file
 * (marked's lexer) and `<pre><code>` blocks of a built HTML page
 * (node-html-parser). A block the test cannot run says why, in words a reader
 * sees: an HTML comment `<!-- not run by the docs test: why -->` right before
 * it skips the whole block; a shell line whose comment says
 * `not run by the docs test: why` skips that line.
 */
import { marked, type Token, type Tokens } from 'marked';
import { parse, NodeType, type HTMLElement, type Node } from 'node-html-parser';

export type BlockLanguage = 'sh' | 'ts';

export interface CodeBlock {
  /** Where it is, for the test name: `README.md:42` or `index.html block 3`. */
  where: string;
  language: BlockLanguage;
  code: string;
  /** Why the whole block is not run, when its marker says so. */
  skipped?: string;
}

export const skipMarker = /not run by the docs test:\s*(.*?)\s*(?:-->)?\s*$/;

const languages: Record<string, BlockLanguage> = { sh: 'sh', bash: 'sh', shell: 'sh', ts: 'ts', typescript: 'ts' };

/** Blocks in another language (the layout tree, JSON, YAML) are prose to read, not commands. */
function languageOf(tag: string | undefined): BlockLanguage | undefined {
  return tag ? languages[tag.trim().split(/\s+/)[0]!.toLowerCase()] : undefined;
}

export function markdownBlocks(markdown: string, file: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let searchFrom = 0;
  let previous: Token | undefined;
  const visit = (tokens: Token[]) => {
    for (const token of tokens) {
      if (token.type === 'code') {
        const code = token as Tokens.Code;
        const offset = markdown.indexOf(code.raw, searchFrom);
        searchFrom = offset >= 0 ? offset + code.raw.length : searchFrom;
        const line = offset >= 0 ? markdown.slice(0, offset).split('\n').length : 0;
        const language = languageOf(code.lang);
        const marker = previous?.type === 'html' ? skipMarker.exec(previous.raw.trim()) : null;
        if (language) blocks.push({ where: `${file}:${line}`, language, code: code.text, ...(marker ? { skipped: marker[1]! } : {}) });
      }
      if (token.type !== 'space') previous = token;
      const children = (token as { tokens?: Token[] }).tokens ?? (token as { items?: Token[] }).items;
      if (children && token.type !== 'code') visit(children);
    }
  };
  visit(marked.lexer(markdown));
  return blocks;
}

/** The nearest node before `node` that is not blank text. */
function previousSignificant(node: Node): Node | undefined {
  const siblings = node.parentNode?.childNodes ?? [];
  for (let i = siblings.indexOf(node) - 1; i >= 0; i--) {
    const sibling = siblings[i]!;
    if (sibling.nodeType === NodeType.TEXT_NODE && sibling.rawText.trim() === '') continue;
    return sibling;
  }
  return undefined;
}

/** `<pre><code class="language-sh">`; a `<pre>` without a language is shell, as on the getting-started page. */
export function htmlBlocks(html: string, file: string): CodeBlock[] {
  // By default the parser keeps a <pre>'s content as raw text; its <code> element is wanted here.
  const root = parse(html, { comment: true, blockTextElements: { script: true, noscript: true, style: true } });
  return root.querySelectorAll('pre').flatMap((pre: HTMLElement, index) => {
    const code = pre.querySelector('code') ?? pre;
    const language = languageOf(/language-(\w+)/.exec(code.getAttribute('class') ?? '')?.[1] ?? 'sh');
    if (!language) return [];
    const before = previousSignificant(pre);
    const marker = before?.nodeType === NodeType.COMMENT_NODE ? skipMarker.exec(before.rawText.trim()) : null;
    return [{ where: `${file} block ${index + 1}`, language, code: code.text, ...(marker ? { skipped: marker[1]! } : {}) }];
  });
}
