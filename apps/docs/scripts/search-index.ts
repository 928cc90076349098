/**
 * The site's search index (search-index.json), written at build time and read by search.js on
 * every page: one entry per operation (the reference is Redoc's, rendered in the browser, so its
 * operations come from the contract) and per error code (from the catalog), and, read from the
 * built pages themselves, one per page and one per titled part of a page: every heading with an id,
 * with the text under it. So a page added or rewritten later (the changelog's entries, a new
 * section of getting started) is searchable as built, with nothing listed here by hand.
 */
import { errorCatalog, errorCodes, operationIds, operationTable } from '@gateway-minds/contract';
import { parse, type HTMLElement } from 'node-html-parser';
import { referenceAnchor, SEARCH_INDEX_FORMAT, sitePages } from './pages.js';

export interface SearchEntry {
  id: number;
  /** What a result shows first. */
  title: string;
  /** Which page it is on, as the navigation names it. */
  section: string;
  /** Relative to the site's root. */
  url: string;
  /** Words that name it (operation ids, codes, paths), weighed above the text. */
  keywords: string;
  text: string;
  /** The start of the text, shown under the title. */
  excerpt: string;
}

export interface SearchIndexFile {
  format: typeof SEARCH_INDEX_FORMAT;
  entries: SearchEntry[];
}

const MAX_TEXT = 4000;
const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
const excerptOf = (text: string) => (text.length > 160 ? `${text.slice(0, 159)}…` : text);
const labelOf = (file: string) => sitePages.find(([href]) => href === file)?.[1] ?? file;

/** The text under a heading: its following siblings up to the next heading of its rank or above. */
function textUnder(heading: HTMLElement): string {
  const rank = Number(heading.tagName.slice(1));
  const parts: string[] = [];
  for (let next = heading.nextElementSibling; next; next = next.nextElementSibling) {
    const tag = /^H([1-6])$/.exec(next.tagName);
    if (tag && Number(tag[1]) <= rank) break;
    parts.push(next.textContent);
  }
  return squash(parts.join(' '));
}

/** Entries read from one built page (not the reference): the page, and each heading with an id in its <main>. */
export function pageEntries(file: string, html: string): Omit<SearchEntry, 'id'>[] {
  const main = parse(html).querySelector('main');
  if (!main) return [];
  const section = labelOf(file);
  const title = squash(main.querySelector('h1')?.textContent ?? section);
  const text = squash(main.textContent).slice(0, MAX_TEXT);
  const entries: Omit<SearchEntry, 'id'>[] = [{ title, section, url: file, keywords: '', text, excerpt: excerptOf(squash(main.querySelector('h1 ~ p')?.textContent ?? text)) }];
  for (const heading of main.querySelectorAll('h1[id], h2[id], h3[id], h4[id]')) {
    const under = textUnder(heading).slice(0, MAX_TEXT);
    entries.push({ title: squash(heading.textContent), section, url: `${file}#${heading.id}`, keywords: heading.id, text: under, excerpt: excerptOf(under) });
  }
  return entries;
}

/** The whole index: operations, error codes, and every built page given (file and HTML). */
export function buildSearchIndex(pages: { file: string; html: string }[]): SearchIndexFile {
  const operations = operationIds.map((id) => {
    const o = operationTable[id];
    const text = squash(o.description);
    return { title: `${o.summary} (${id})`, section: labelOf('reference.html'), url: referenceAnchor(id), keywords: `${id} ${o.method.toUpperCase()} ${o.path} ${o.tag}`, text, excerpt: `${o.method.toUpperCase()} ${o.path}` };
  });
  const codes = errorCodes.map((code) => {
    const facts = errorCatalog[code];
    const reasons = Object.entries(facts.reasons).map(([reason, meaning]) => `${reason}: ${meaning}`);
    const text = squash([facts.description, ...reasons].join('. '));
    return { title: code, section: labelOf('errors.html'), url: `errors.html#${code}`, keywords: `${code} ${facts.status} ${facts.type} ${Object.keys(facts.reasons).join(' ')}`, text, excerpt: excerptOf(`${facts.status} ${facts.type}: ${text}`) };
  });
  const fromPages = pages.flatMap(({ file, html }) => pageEntries(file, html));
  return { format: SEARCH_INDEX_FORMAT, entries: [...fromPages, ...operations, ...codes].map((entry, id) => ({ id, ...entry })) };
}
